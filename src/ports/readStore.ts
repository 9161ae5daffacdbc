/**
 * Read store port: documents by collection and id, plus projection checkpoints, written together.
 * Adapters: SQLite (embedded) and MongoDB (scale-out). Each stored document remembers the event
 * position it reflects, so replaying an event it already reflects changes nothing.
 */
import { portErrorBrand } from './portError.js';

export interface StoredDocument<T> {
  doc: T;
  /** position of the last event applied to this document */
  position: bigint;
}

export interface DocumentWrite {
  collection: string;
  id: string;
  /** undefined deletes the document */
  doc: unknown;
  position: bigint;
  /**
   * The document's index keys (`owner:<address>`, `tag:<name>\u0000<value>`, ...) under one sort key,
   * for `findByKey`: they replace whatever keys the document had (none: it has none), and go with it
   * when it is deleted, dropped or promoted.
   */
  index?: DocumentIndex;
}

/** What a document is found by: its keys, and where it sorts among the documents of each key. */
export interface DocumentIndex {
  keys: readonly string[];
  /** unique within the collection (end it with the id), compared as strings of UTF-16 code units below 0x80 */
  sort: string;
}

/** A page of `findByKey`: sort keys after `after` in the direction asked, at most `limit`. */
export interface KeyPage {
  /** exclusive: the sort key of the last document of the previous page */
  after?: string;
  limit: number;
  descending: boolean;
  /** exclusive bound on the other side: the scan stops before this sort key */
  before?: string;
}

export interface CheckpointWrite {
  name: string;
  position: bigint;
  /**
   * Compare-and-set: `null`, the checkpoint must not exist yet; a bigint, it must equal that; absent,
   * unconditional. A writer that computed its batch from the documents as of its checkpoint passes it
   * here, so a batch computed from documents replaced meanwhile (a rebuild promoted) is refused.
   */
  expected?: bigint | null;
}

/** A collection and the checkpoint that says which position its documents reflect. */
export interface ReadModelRef {
  collection: string;
  checkpoint: string;
}

export interface ReadStore {
  get<T>(collection: string, id: string): Promise<StoredDocument<T> | undefined>;
  getMany<T>(collection: string, ids: readonly string[]): Promise<Map<string, StoredDocument<T>>>;
  /** documents of a collection in id order, a page at a time (for process managers and tools) */
  scan<T>(collection: string, page: { afterId?: string; limit: number }): Promise<(StoredDocument<T> & { id: string })[]>;
  /**
   * Documents carrying index key `key`, in their sort keys' order: a bounded number of index reads
   * whatever the collection's size (SQLite: an index on (collection, key, sort); MongoDB: a
   * multikey index). Each with its sort key, the cursor of the page that follows it.
   */
  findByKey<T>(collection: string, key: string, page: KeyPage): Promise<(StoredDocument<T> & { id: string; sort: string })[]>;
  /**
   * Documents and checkpoints in one atomic write. When a checkpoint's `expected` does not hold,
   * throws CheckpointConflict and writes nothing.
   */
  commit(writes: readonly DocumentWrite[], checkpoints: readonly CheckpointWrite[]): Promise<void>;
  getCheckpoint(name: string): Promise<bigint | undefined>;
  dropCollection(collection: string): Promise<void>;
  /**
   * Takes or renews the lease `name` for `holder` until `now + ttlMs`; true when `holder` holds it.
   * One active instance of a singleton (the bundler, a projection's runner) across processes.
   */
  tryLease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  deleteCheckpoint(name: string): Promise<void>;
  /**
   * Switches a read model built beside the live one, atomically: when `from`'s checkpoint is at or
   * beyond `to`'s (or `to` has none), deletes `to`'s documents, moves `from`'s documents into
   * `to.collection`, sets `to`'s checkpoint to `from`'s position, deletes `from`'s checkpoint, and
   * answers true. Otherwise changes nothing and answers false (`to` moved on: catch up, try again).
   * Throws, changing nothing, when `from` has no checkpoint (nothing was built).
   * `replacing`: also switch when `to`'s checkpoint is beyond `from`'s, if it is exactly this position
   * (compare-and-set): a live model the rebuild found ahead of the last event, reflecting events the
   * event store does not have, is replaced rather than kept.
   */
  promote(from: ReadModelRef, to: ReadModelRef, options?: { replacing?: bigint }): Promise<boolean>;
  /**
   * A real write no reader sees (in a table or collection of the store's own), resolving once done:
   * rejects (ReadStoreUnavailable) when the store cannot take writes now (disk full, read-only). For readiness.
   */
  probeWrite(): Promise<void>;
  close(): Promise<void>;
}

// Told apart with `X.is(error)`, never `instanceof` (see portError.ts).
const checkpointConflict = portErrorBrand<CheckpointConflict>('CheckpointConflict');
const readStoreUnavailable = portErrorBrand<ReadStoreUnavailable>('ReadStoreUnavailable');

/** A commit's expected checkpoint did not hold: nothing of that commit was written. */
export class CheckpointConflict extends Error {
  static is = checkpointConflict.is;
  override readonly name = 'CheckpointConflict';
  constructor(
    readonly checkpoint: string,
    readonly expected: bigint | null,
    /** undefined: the checkpoint does not exist */
    readonly actual: bigint | undefined,
  ) {
    super(`checkpoint ${checkpoint} is ${actual === undefined ? 'absent' : String(actual)}, expected ${expected === null ? 'absent' : String(expected)}`);
    checkpointConflict.mark(this);
  }
}

export class ReadStoreUnavailable extends Error {
  static is = readStoreUnavailable.is;
  override readonly name = 'ReadStoreUnavailable';
  constructor(...args: ConstructorParameters<typeof Error>) {
    super(...args);
    readStoreUnavailable.mark(this);
  }
}
