import type { ClientSession, Collection, Db, MongoClient } from 'mongodb';
import type { CheckpointWrite, DocumentWrite, KeyPage, ReadModelRef, ReadStore, StoredDocument } from '../../ports/readStore.js';
import { checkpointOps, documentOps, planDocuments, type CheckpointRecord, type DocumentRecord } from './commitPlan.js';
import { guarded } from './errors.js';
import { tryLease, type LeaseRecord } from './leases.js';
import { decodePosition, encodePosition } from './positions.js';
import { ReadCatalog } from './readCatalog.js';
import { inTransaction } from './transactions.js';
import { bestEffort } from '../../bestEffort.js';

export interface MongoReadStoreOptions {
  client: MongoClient;
  database: string;
  /**
   * Whether `close()` closes the client. Default false: a client passed in belongs to the caller,
   * who may share it (with the GridFS blob store, for example) and closes it once. The composition
   * root passes true for a client it made for this store alone.
   */
  ownsClient?: boolean;
}

export interface MongoReadStore extends ReadStore {
  /**
   * Removes the tombstones of `collection` at or below `upTo`. Safe once every writer of the
   * collection has a checkpoint at or past `upTo`: no replay can then bring an older event back.
   * Not called by the store itself (it cannot know which checkpoint governs which collection).
   */
  purgeTombstones(collection: string, upTo: bigint): Promise<number>;
}

/** Read models whose documents get deleted accumulate tombstones; scans skip them through this index. */
const LIVE_BY_ID = { live: 1, _id: 1 } as const;
/**
 * `findByKey`: a multikey index (one entry per key of a document's `keys` array) followed by its sort
 * key, so an equality on a key and a range on `sort` read the index in order; partial, so the read
 * models without keys hold no entries in it (a query names `sort: { $exists: true }` to be allowed it).
 */
const BY_KEY = { keys: 1, sort: 1 } as const;
const BY_KEY_OPTIONS = { name: 'by_key', partialFilterExpression: { sort: { $exists: true } } } as const;
/** ids per `$in` query: far below the 16 MiB command limit whatever the id length */
const MANY_CHUNK = 10_000;
/** how long a collection no read model names any more is kept for readers that looked it up before */
const RETIRED_GRACE_MS = 10 * 60 * 1000;

/**
 * Read store on a MongoDB replica set (it needs transactions). Layout: `catalog` names the collection
 * holding each read model's documents (`docs.<name>.<generation>`, documents `{ _id: id, position,
 * live, doc }`), `checkpoints` holds `{ _id: name, position }`, `leases` `{ _id: name, holder,
 * expiresAt }`, `retired` the collections waiting to be dropped. Positions are BSON int64.
 *
 * A commit is one transaction: checkpoints compared, documents written where the stored position
 * (tombstones included) is older, checkpoints written; all or nothing, so readers never see part of a
 * batch and a refused compare-and-set leaves no trace. A promote is one transaction too, rewriting
 * catalog entries and checkpoints, however many documents the models hold. Read models can be
 * rebuilt from the events, so the client's default write concern is used.
 */
export async function openMongoReadStore(options: MongoReadStoreOptions): Promise<MongoReadStore> {
  const db = options.client.db(options.database);
  // fails start-up (not the first request) when the deployment cannot be reached or cannot do transactions
  const hello = await guarded(() => db.command({ hello: 1 }));
  if (typeof hello.setName !== 'string' && hello.msg !== 'isdbgrid') {
    throw new Error('the MongoDB read store needs a replica set (or a sharded cluster): its commits are transactions');
  }
  const store = new MongoReadStoreImpl(db, options.client, options.ownsClient ?? false);
  await guarded(() => store.prepare());
  return store;
}

class MongoReadStoreImpl implements MongoReadStore {
  readonly #catalog: ReadCatalog;
  readonly #checkpoints: Collection<CheckpointRecord>;
  readonly #leases: Collection<LeaseRecord>;
  /** collections this process made sure have their index */
  readonly #indexed = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly client: MongoClient,
    private readonly ownsClient: boolean,
  ) {
    this.#catalog = new ReadCatalog(db);
    this.#checkpoints = db.collection<CheckpointRecord>('checkpoints', { useBigInt64: true });
    this.#leases = db.collection<LeaseRecord>('leases');
  }

  /**
   * At open: the store's collections exist (transactions then never create them), every read
   * model's collection has its index, collections retired long ago are dropped.
   */
  async prepare(): Promise<void> {
    await this.#catalog.createOwnCollections([this.#checkpoints.collectionName, this.#leases.collectionName]);
    for (const physical of await this.#catalog.physicalCollections()) await this.#ensureIndex(physical);
    await this.#catalog.dropRetired(RETIRED_GRACE_MS);
  }

  get<T>(collection: string, id: string): Promise<StoredDocument<T> | undefined> {
    return guarded(async () => {
      const documents = await this.#documentsOf(collection);
      const row = await documents?.findOne({ _id: id, live: true });
      return row ? storedOf<T>(row) : undefined;
    });
  }

  getMany<T>(collection: string, ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
    return guarded(async () => {
      const found = new Map<string, StoredDocument<T>>();
      const documents = await this.#documentsOf(collection);
      if (documents === undefined) return found;
      const unique = [...new Set(ids)];
      for (let at = 0; at < unique.length; at += MANY_CHUNK) {
        for (const row of await documents.find({ _id: { $in: unique.slice(at, at + MANY_CHUNK) }, live: true }).toArray()) {
          found.set(row._id, storedOf<T>(row));
        }
      }
      return found;
    });
  }

  scan<T>(collection: string, page: { afterId?: string; limit: number }): Promise<(StoredDocument<T> & { id: string })[]> {
    return guarded(async () => {
      const documents = await this.#documentsOf(collection);
      // MongoDB reads a limit of 0 as "no limit"
      if (documents === undefined || page.limit <= 0) return [];
      const rows = await documents.find({ live: true, _id: { $gt: page.afterId ?? '' } }, { sort: { _id: 1 }, limit: page.limit }).toArray();
      return rows.map((row) => ({ id: row._id, ...storedOf<T>(row) }));
    });
  }

  findByKey<T>(collection: string, key: string, page: KeyPage): Promise<(StoredDocument<T> & { id: string; sort: string })[]> {
    return guarded(async () => {
      const documents = await this.#documentsOf(collection);
      if (documents === undefined || page.limit <= 0) return [];
      const [past, short] = page.descending ? (['$lt', '$gt'] as const) : (['$gt', '$lt'] as const);
      const sort: Record<string, unknown> = { $exists: true };
      if (page.after !== undefined) sort[past] = page.after;
      if (page.before !== undefined) sort[short] = page.before;
      const rows = await documents.find({ keys: key, sort, live: true }, { sort: { sort: page.descending ? -1 : 1 }, limit: page.limit }).toArray();
      return rows.map((row) => ({ id: row._id, sort: row.sort!, ...storedOf<T>(row) }));
    });
  }

  commit(writes: readonly DocumentWrite[], checkpoints: readonly CheckpointWrite[]): Promise<void> {
    return guarded(async () => {
      // planned first: a position out of range fails the commit before anything is written
      const planned = planDocuments(writes);
      if (planned.size === 0 && checkpoints.length === 0) return;
      // a read model's first commit makes its collection and index first, outside the transaction
      for (const collection of planned.keys()) await this.#ensureIndex(await this.#catalog.prepareForWrite(collection));
      const written = new Map<string, string>();
      await this.#transaction(async (session) => {
        written.clear();
        const stored = await this.#storedCheckpoints(
          checkpoints.map((c) => c.name),
          session,
        );
        const checkpointWrites = checkpointOps(checkpoints, stored);
        for (const [collection, documents] of planned) {
          const physical = await this.#catalog.forWrite(collection, session);
          written.set(collection, physical);
          const target = this.#documents(physical);
          const current = await target.find({ _id: { $in: documents.map((d) => d.id) } }, { projection: { position: 1 }, session }).toArray();
          const ops = documentOps(documents, new Map(current.map((row) => [row._id, decodePosition(row.position)])));
          if (ops.length > 0) await target.bulkWrite(ops, { session });
        }
        if (checkpointWrites.length > 0) await this.#checkpoints.bulkWrite(checkpointWrites, { session });
      });
      // a collection the transaction had to make itself (a drop or promote in between) gets its index now
      for (const physical of written.values()) await this.#ensureIndex(physical);
    });
  }

  getCheckpoint(name: string): Promise<bigint | undefined> {
    return guarded(async () => {
      const row = await this.#checkpoints.findOne({ _id: name });
      return row ? decodePosition(row.position) : undefined;
    });
  }

  dropCollection(collection: string): Promise<void> {
    return guarded(async () => {
      await this.#transaction((session) => this.#catalog.remove(collection, session));
      this.#catalog.forget(collection);
    });
  }

  promote(from: ReadModelRef, to: ReadModelRef, options: { replacing?: bigint } = {}): Promise<boolean> {
    return guarded(async () => {
      const promoted = await this.#transaction(async (session) => {
        const stored = await this.#storedCheckpoints([from.checkpoint, to.checkpoint], session);
        const built = stored.get(from.checkpoint);
        if (built === undefined) throw new Error(`cannot promote ${from.collection}: checkpoint ${from.checkpoint} does not exist`);
        const live = stored.get(to.checkpoint);
        if (live !== undefined && live > built && live !== options.replacing) return false;
        await this.#catalog.swap(from.collection, to.collection, session);
        await this.#checkpoints.replaceOne({ _id: to.checkpoint }, { position: built }, { upsert: true, session });
        await this.#checkpoints.deleteOne({ _id: from.checkpoint }, { session });
        return true;
      });
      this.#catalog.forget(from.collection, to.collection);
      if (promoted) await bestEffort(this.#catalog.dropRetired(RETIRED_GRACE_MS), 'housekeeping: the next promote or open drops what is left');
      return promoted;
    });
  }

  probeWrite(): Promise<void> {
    return guarded(async () => {
      // a collection of its own, outside any transaction: what a commit needs (a primary taking writes)
      await this.db.collection<{ _id: string; at: Date }>('write_probe').updateOne({ _id: 'probe' }, { $set: { at: new Date() } }, { upsert: true });
    });
  }

  tryLease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    return guarded(() => tryLease(this.#leases, name, holder, ttlMs, now));
  }

  deleteCheckpoint(name: string): Promise<void> {
    return guarded(async () => {
      await this.#checkpoints.deleteOne({ _id: name });
    });
  }

  purgeTombstones(collection: string, upTo: bigint): Promise<number> {
    return guarded(async () => {
      const documents = await this.#documentsOf(collection);
      if (documents === undefined) return 0;
      const { deletedCount } = await documents.deleteMany({ live: false, position: { $lte: encodePosition(upTo) } });
      return deletedCount;
    });
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  async #documentsOf(collection: string): Promise<Collection<DocumentRecord> | undefined> {
    const physical = await this.#catalog.resolve(collection);
    return physical === undefined ? undefined : this.#documents(physical);
  }

  #documents(physical: string): Collection<DocumentRecord> {
    return this.db.collection<DocumentRecord>(physical, { useBigInt64: true });
  }

  async #storedCheckpoints(names: readonly string[], session: ClientSession): Promise<Map<string, bigint>> {
    const rows = await this.#checkpoints.find({ _id: { $in: [...new Set(names)] } }, { session }).toArray();
    return new Map(rows.map((row) => [row._id, decodePosition(row.position)]));
  }

  #transaction<T>(work: (session: ClientSession) => Promise<T>): Promise<T> {
    return inTransaction(this.client, work);
  }

  /**
   * The index only speeds scans up, so a failure to build it does not fail the commit that wanted
   * it: the next commit to the collection tries again.
   */
  async #ensureIndex(physical: string): Promise<void> {
    if (this.#indexed.has(physical)) return;
    try {
      await this.#documents(physical).createIndex(LIVE_BY_ID);
      await this.#documents(physical).createIndex(BY_KEY, BY_KEY_OPTIONS);
      this.#indexed.add(physical);
    } catch {
      // an unreachable server is reported by the next operation that needs one
    }
  }
}

const storedOf = <T>(row: DocumentRecord): StoredDocument<T> => ({ doc: row.doc as T, position: decodePosition(row.position) });
