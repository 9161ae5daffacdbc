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
