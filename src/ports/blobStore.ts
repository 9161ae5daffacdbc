import type { Readable } from 'node:stream';
import { portErrorBrand } from './portError.js';

/**
 * Blob store port: bytes live here, never in events. Keys are relative paths made of
 * `[A-Za-z0-9_-]` segments joined by `/` (for example `items/<id>`, `uploads/<uploadId>/<offset>`).
 */

export interface BlobInfo {
  size: number;
}

/** One blob of a listing. */
export interface ListedBlob {
  key: string;
  size: number;
  /** ms since the epoch when the blob last changed under its key: written, committed, moved there, cut */
  modifiedAt: number;
}

export interface ByteRange {
  /** first byte, inclusive */
  start: number;
  /** last byte, inclusive (HTTP-range style) */
  end: number;
}

/** A blob being written under a temporary name; invisible under its key until `commit`. */
export interface BlobWriter {
  /** resolves when the bytes are handed to the OS (respects backpressure); once it settles the caller may reuse `chunk` */
  write(chunk: Uint8Array): Promise<void>;
  readonly bytesWritten: number;
  /** flush, fsync, atomically move to `key` (replacing any blob there) and fsync the directory */
  commit(key: string): Promise<BlobInfo>;
  /** drop the temporary bytes; safe to call after a failure or twice */
  abort(): Promise<void>;
}

/** A blob held open for reads into the caller's buffers (see `BlobStore.open`). */
export interface OpenBlob {
  /** its size when opened: the open blob is that version, whatever is committed under its key meanwhile */
  readonly size: number;
  /**
   * a file descriptor of this process that reads exactly these bytes at the same positions, while the
   * blob is open, when it is one plain file: another thread (a hashing worker) may read it there
   */
  readonly fd?: number;
  /** reads up to `into.byteLength` bytes from byte `position` into `into`; resolves how many (0 past the end) */
  read(into: Uint8Array, position: number): Promise<number>;
  close(): Promise<void>;
}

/** `length` bytes of the blob `key` from byte `start`: one part of a composed blob. */
export interface BlobSlice {
  key: string;
  start: number;
  length: number;
}

export interface BlobStore {
  createWriter(): Promise<BlobWriter>;
  /** convenience: stream a whole source to `key` durably */
  put(key: string, source: AsyncIterable<Uint8Array>): Promise<BlobInfo>;
  /** streaming read, optionally of a byte range; rejects with BlobNotFound when absent */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * Opens a blob for reads at any position into buffers the reader keeps and refills: a long read
   * then allocates nothing per chunk, so it makes no garbage (a stream's fresh 1 MiB chunks cost
   * the service's heap a full collection every few dozen MiB). Only stores that read at a position
   * cheaply (files) offer it; rejects with BlobNotFound when absent.
   */
  open?(key: string): Promise<OpenBlob>;
  stat(key: string): Promise<BlobInfo | undefined>;
  /**
   * Writes `source` at byte `offset` of the blob `key`, creating it if absent: the blob of a
   * multi-part upload, whose parts arrive in any order and may be written again. The bytes are
   * durable when it resolves. A blob written this way is visible while it is being written.
   */
  writeAt(key: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<{ bytesWritten: number }>;
  /** cuts a blob to `size` bytes, durably (the rest of a blob written with writeAt) */
  truncate(key: string, size: number): Promise<void>;
  /**
   * Durably makes `key` the concatenation of these slices of existing blobs (replacing any blob
   * there) without copying their bytes, for stores that can: the item of a multi-part upload is made
   * of its chunk blobs. The composed blob keeps the slices' bytes when their blobs are deleted, so
   * only blobs nobody writes again may be composed (`put` blobs, never `writeAt` ones). It reads,
   * stats, lists, moves and deletes as one blob of the slices' summed size; `writeAt` refuses it. A
   * read opens its parts as it reaches them: a composed blob deleted or replaced meanwhile fails the
   * read instead of finishing the old version. Rejects with BlobNotFound when a source is absent and
   * with RangeError when a slice is not within its blob.
   */
  compose?(key: string, slices: readonly BlobSlice[]): Promise<BlobInfo>;
  /** renames a blob durably, replacing any blob at `to`; rejects with BlobNotFound when `from` is absent */
  move(from: string, to: string): Promise<void>;
  /** idempotent */
  delete(key: string): Promise<void>;
  /** delete every blob under `prefix/` (for example an upload's chunks); idempotent */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * Every blob under `prefix/`, at any depth, each once, as a stream: the store is walked as the
   * listing is read, never held in memory, so it may hold millions of blobs. No order is promised. A
   * blob committed, moved or deleted during the listing may or may not be in it; one written with
   * `writeAt` may be listed while parts are still being written. For tools (the audit).
   */
  list(prefix: string): AsyncIterable<ListedBlob>;
  /**
   * Readiness: a write that fails, as a new blob's would, when the store cannot take one now (its
   * disk full, its file unwritable); nothing stays. For stores whose writers touch nothing before
   * their bytes pass a size (the tiered store); readiness makes and aborts a writer otherwise.
   */
  probeWrite?(): Promise<void>;
  close(): Promise<void>;
}

// Told apart with `X.is(error)`, never `instanceof` (see portError.ts).
const blobNotFound = portErrorBrand<BlobNotFound>('BlobNotFound');
const blobStoreUnavailable = portErrorBrand<BlobStoreUnavailable>('BlobStoreUnavailable');

export class BlobNotFound extends Error {
  static is = blobNotFound.is;
  override readonly name = 'BlobNotFound';
  constructor(readonly key: string) {
    super(`blob not found: ${key}`);
    blobNotFound.mark(this);
  }
}

/**
 * The store cannot take (or give) bytes now: its disk is full, over quota, read-only or failing, or
 * its server cannot be reached. Nothing is wrong with the request: it may be retried.
 */
export class BlobStoreUnavailable extends Error {
  static is = blobStoreUnavailable.is;
  override readonly name = 'BlobStoreUnavailable';
  constructor(...args: ConstructorParameters<typeof Error>) {
    super(...args);
    blobStoreUnavailable.mark(this);
  }
}

/** Keys must not escape the store: no `..`, no absolute paths, no empty segments. */
export const isValidBlobKey = (key: string): boolean => /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/.test(key) && key.length <= 512;
