/**
 * Read store port: documents by collection and id, plus projection checkpoints, written together.
 * Adapters: SQLite (embedded) and MongoDB (scale-out). Each stored document remembers the event
 * position it reflects, so replaying an event it already reflects changes nothing.
 */

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
}

export interface ReadStore {
  get<T>(collection: string, id: string): Promise<StoredDocument<T> | undefined>;
  getMany<T>(collection: string, ids: readonly string[]): Promise<Map<string, StoredDocument<T>>>;
  /** documents of a collection in id order, a page at a time (for process managers and tools) */
  scan<T>(collection: string, page: { afterId?: string; limit: number }): Promise<(StoredDocument<T> & { id: string })[]>;
  /** documents and checkpoints in one atomic write */
  commit(writes: readonly DocumentWrite[], checkpoints: readonly CheckpointWrite[]): Promise<void>;
  getCheckpoint(name: string): Promise<bigint | undefined>;
  dropCollection(collection: string): Promise<void>;
  /**
   * Takes or renews the lease `name` for `holder` until `now + ttlMs`; true when `holder` holds it.
   * One active instance of a singleton (the bundler, a projection's runner) across processes.
   */
  tryLease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  deleteCheckpoint(name: string): Promise<void>;
  close(): Promise<void>;
}

export class ReadStoreUnavailable extends Error {
  override readonly name = 'ReadStoreUnavailable';
}
