import type { Cut, Layer } from './blobPlan.js';

/**
 * What the layered blob store needs from its storage, each call one or two operations that are
 * atomic on their own (single-document writes). MongoDB implements it with a pointer collection and
 * a GridFS bucket (`../mongo/gridfsBackend.ts`); tests implement it in memory, so the store's logic runs
 * without a server.
 *
 * A key points at a blob (an id); the blob's bytes are its layers (immutable files). Pointing a key
 * at another blob is one document write, which is what makes commit, move and replace atomic: a
 * reader sees the old blob or the new one, never a mix.
 */
export interface BlobPointer {
  blob: string;
  /** the last layer or cut number handed out for this blob */
  seq: number;
  cuts: Cut[];
}

export interface LayerUpload {
  readonly id: string;
  /** resolves once the bytes are stored or buffered for the next stored piece; one call at a time */
  write(chunk: Uint8Array): Promise<void>;
  /** stores the rest and makes the layer exist; resolves with its length */
  finish(): Promise<number>;
  /** removes whatever was stored of the layer, finished or not */
  abort(): Promise<void>;
}

export interface BlobBackend {
  pointer(key: string): Promise<BlobPointer | undefined>;
  /** the next number for a layer of `key`'s blob; creates the pointer, to a new blob, when absent */
  reserveLayer(key: string): Promise<{ blob: string; seq: number }>;
  /** points `key` at `pointer` (creating it if absent), returning what it pointed at before */
  replacePointer(key: string, pointer: BlobPointer): Promise<BlobPointer | undefined>;
  /** removes `key`'s pointer, only if it still points at `blob` when given; returns what was removed */
  removePointer(key: string, blob?: string): Promise<BlobPointer | undefined>;
  /** records a cut at `size` under a new number if `key` still points at `blob`; its number, or undefined */
  appendCut(key: string, blob: string, size: number): Promise<number | undefined>;
  /** keys strictly under `prefix/`, with the blobs they point at and when they last changed (ms since the epoch) */
  keysUnder(prefix: string): AsyncIterable<{ key: string; blob: string; changedAt: number }>;
  /** whether any key points at `blob` */
  isReferenced(blob: string): Promise<boolean>;

  newBlobId(): string;
  /** a layer of `blob` numbered `seq` at `offset`; a temporary one is found by the sweep until published */
  createLayer(blob: string, seq: number, offset: number, temporary: boolean): LayerUpload;
  /** the finished layers of `blob`, optionally only those whose offset is within `[min, max]` */
  layers(blob: string, offsets?: { min?: number; max?: number }): Promise<Layer[]>;
  /** a temporary layer is now referenced: the sweep must leave it alone */
  publishLayer(id: string, blob: string, seq: number): Promise<void>;
  /** idempotent */
  deleteLayers(ids: readonly string[]): Promise<void>;
  /** bytes `[start, end)` of a layer; stopping early releases what the read holds */
  readLayer(id: string, start: number, end: number): AsyncIterable<Uint8Array>;
  /** temporary layers finished before `before`: left by a process that died during a commit */
  staleTemporaryLayers(before: Date): AsyncIterable<{ id: string; blob: string; seq: number }>;
  close(): Promise<void>;
}
