/**
 * Each read-model collection's documents live in a MongoDB collection of their own, named
 * `docs.<name>.<generation>`; the `catalog` collection says which one is a read model's now. A new
 * generation per collection lets `promote` swap a model built beside the live one by rewriting one
 * catalog entry, and `dropCollection` retire one the same way, instead of moving or deleting millions
 * of documents. The prefix keeps them apart from `catalog`, `checkpoints`, `leases` and `retired`,
 * and from a GridFS bucket sharing the database.
 */
const PREFIX = 'docs.';

/** MongoDB's limit on `<database>.<collection>` in bytes */
const MAX_NAMESPACE_BYTES = 255;

/**
 * Any string is a valid read-model name (as in SQLite), so it is percent-encoded: `$` and NUL are not
 * allowed in collection names, and `.` is encoded too so that the mapping stays one-to-one and the
 * generation always follows the last dot. Typical names (`uploads_v1`) come out unchanged.
 */
export function documentsCollectionName(database: string, collection: string, generation: string): string {
  const name = `${PREFIX}${encodeURIComponent(collection).replace(/\./g, '%2E')}.${generation}`;
  if (Buffer.byteLength(`${database}.${name}`) > MAX_NAMESPACE_BYTES) {
    throw new RangeError(`read model name too long for MongoDB: ${JSON.stringify(collection)}`);
  }
  return name;
}
