import { MongoServerError, ObjectId, type ClientSession, type Collection, type Db } from 'mongodb';
import { documentsCollectionName } from './readModelNames.js';

/** `catalog`: which MongoDB collection holds a read-model collection's documents now */
export interface CatalogRecord {
  _id: string;
  physical: string;
  /** bumped by every commit, so a commit and a promote of the same model conflict (one retries) */
  commits?: number;
}

/** `retired`: collections no read model names any more, dropped once no reader can be using them */
interface RetiredRecord {
  _id: string;
  at: Date;
}

/**
 * How long a reader may use a catalog entry it looked up. A promote or drop by another process is
 * seen within this time; until then the reader keeps reading the retired collection, which still
 * holds the documents it had (a consistent old view, never a mix).
 */
const READ_CACHE_MS = 1000;

/**
 * Read models by catalog entry (see `readModelNames.ts`). Commits and promotes read and write
 * entries inside their transactions; reads look them up outside, cached briefly.
 */
export class ReadCatalog {
  readonly #cache = new Map<string, { physical: string; at: number }>();
  readonly #entries: Collection<CatalogRecord>;
  readonly #retired: Collection<RetiredRecord>;

  constructor(private readonly db: Db) {
    this.#entries = db.collection<CatalogRecord>('catalog');
    this.#retired = db.collection<RetiredRecord>('retired');
  }

  /** For reads: the collection holding `logical`'s documents; undefined when it never had any. */
  async resolve(logical: string): Promise<string | undefined> {
    const cached = this.#cache.get(logical);
    // monotonic (src/clock.ts): a wall clock set back must not keep a swapped collection's old name
    if (cached !== undefined && performance.now() - cached.at < READ_CACHE_MS) return cached.physical;
    const entry = await this.#entries.findOne({ _id: logical });
    if (entry === null) {
      this.#cache.delete(logical);
      return undefined;
    }
    this.#cache.set(logical, { physical: entry.physical, at: performance.now() });
    return entry.physical;
  }

  /**
   * Before a commit's transaction: `logical` has a catalog entry and its collection exists, so the
   * transaction does not have to create one (concurrent creations inside transactions fail where a
   * plain create just finds the collection there). Answers the collection.
   */
  async prepareForWrite(logical: string): Promise<string> {
    const known = await this.resolve(logical);
    if (known !== undefined) return known;
    const entry = await this.#entries.findOneAndUpdate(
      { _id: logical },
      { $setOnInsert: { physical: documentsCollectionName(this.db.databaseName, logical, new ObjectId().toHexString()) } },
      { upsert: true, returnDocument: 'after' },
    );
    if (entry === null) throw new Error(`no catalog entry after an upsert of ${logical}`);
    await createIfAbsent(this.db, entry.physical);
    return entry.physical;
  }

  /** At open: the store's own collections exist before any transaction writes to them. */
  async createOwnCollections(names: readonly string[]): Promise<void> {
    for (const name of [this.#entries.collectionName, this.#retired.collectionName, ...names]) await createIfAbsent(this.db, name);
  }

  /**
   * Inside a commit's transaction: the collection to write `logical`'s documents to, given a new
   * generation on first use. Always a write to the entry, so a promote of the same model committed
   * meanwhile makes this transaction conflict and run again (and then see the promoted model).
   */
  async forWrite(logical: string, session: ClientSession): Promise<string> {
    const entry = await this.#entries.findOneAndUpdate(
      { _id: logical },
      { $inc: { commits: 1 }, $setOnInsert: { physical: documentsCollectionName(this.db.databaseName, logical, new ObjectId().toHexString()) } },
      { upsert: true, returnDocument: 'after', session },
    );
    if (entry === null) throw new Error(`no catalog entry after an upsert of ${logical}`);
    return entry.physical;
  }

  /** Inside a promote's transaction: `to` takes `from`'s documents, `from` has none; `to`'s old ones retire. */
  async swap(from: string, to: string, session: ClientSession): Promise<void> {
    // a model promoted onto itself keeps its documents (rather than retiring them)
    if (from === to) return;
    const built = await this.#entries.findOne({ _id: from }, { session });
    const live = await this.#entries.findOne({ _id: to }, { session });
    if (built !== null) {
      await this.#entries.replaceOne({ _id: to }, { physical: built.physical }, { upsert: true, session });
      await this.#entries.deleteOne({ _id: from }, { session });
    } else {
      await this.#entries.deleteOne({ _id: to }, { session });
    }
    if (live !== null) await this.#retire(live.physical, session);
  }

  /** Inside a transaction: `logical` has no documents any more. */
  async remove(logical: string, session: ClientSession): Promise<void> {
    const entry = await this.#entries.findOneAndDelete({ _id: logical }, { session });
    if (entry !== null) await this.#retire(entry.physical, session);
  }

  /** After a transaction that changed entries: this process reads the new ones at once. */
  forget(...logical: string[]): void {
    for (const name of logical) this.#cache.delete(name);
  }

  /** every collection a read model holds its documents in */
  async physicalCollections(): Promise<string[]> {
    return (await this.#entries.find({}, { projection: { physical: 1 } }).toArray()).map((entry) => entry.physical);
  }

  /** Drops the collections retired longer ago than `graceMs` (far longer than a reader keeps an entry). */
  async dropRetired(graceMs: number): Promise<void> {
    const old = await this.#retired.find({ at: { $lt: new Date(Date.now() - graceMs) } }).toArray();
    for (const { _id: physical } of old) {
      await this.db.collection(physical).drop();
      await this.#retired.deleteOne({ _id: physical });
    }
  }

  async #retire(physical: string, session: ClientSession): Promise<void> {
    await this.#retired.updateOne({ _id: physical }, { $setOnInsert: { at: new Date() } }, { upsert: true, session });
  }
}

/** NamespaceExists: someone (another process, an earlier run) created it first, which is all we wanted */
const NAMESPACE_EXISTS = 48;

async function createIfAbsent(db: Db, name: string): Promise<void> {
  try {
    await db.createCollection(name);
  } catch (error) {
    if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
  }
}
