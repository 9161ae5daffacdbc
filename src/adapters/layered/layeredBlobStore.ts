import { Readable } from 'node:stream';
import { BlobNotFound, type BlobInfo, type BlobStore, type BlobWriter, type ByteRange, type ListedBlob } from '../../ports/blobStore.js';
import { assertBlobKey, assertRangeWithin } from '../fs/validate.js';
import type { BlobBackend, LayerUpload } from './blobBackend.js';
import { hiddenLayers, planRange, sizeOf, type Cut, type Layer } from './blobPlan.js';
import { bytesOf } from './layerStream.js';
import { LayeredBlobWriter, type WriterHost } from './layeredWriter.js';

/** how often a lookup tries again when the key is repointed under it */
const LOOKUP_ATTEMPTS = 5;

interface Snapshot {
  blob: string;
  layers: Layer[];
  cuts: Cut[];
}

/**
 * The blob store over immutable layers (see `blobPlan.ts`) and keys that point at blobs (see
 * `blobBackend.ts`). What a reader sees changes only by single-document writes: a commit, move or
 * replace repoints a key; a part appears when its file is complete; a truncate adds a cut. Files of a
 * blob no key points at any more are deleted afterwards; a failure there is logged, not thrown (the
 * visible change is done; the files are left behind).
 *
 * Differences from the fs store: a part written by `writeAt` becomes visible once complete, not byte
 * by byte; a read streams from files that a concurrent replace or delete of the same key may remove
 * mid-stream (the read then fails, it never mixes bytes); a key may be both a blob and a prefix.
 */
export class LayeredBlobStore implements BlobStore {
  readonly #writers = new Set<LayeredBlobWriter>();
  #closed = false;
  readonly #host: WriterHost = {
    adopt: (key, blob, layerId) => this.#adopt(key, blob, layerId),
    discard: (blob, upload, commitAttempted) => this.#discard(blob, upload, commitAttempted),
    done: (writer) => this.#writers.delete(writer),
  };

  constructor(
    private readonly backend: BlobBackend,
    private readonly log: (message: string, error?: unknown) => void = () => {},
  ) {}

  async createWriter(): Promise<BlobWriter> {
    this.#assertOpen();
    const blob = this.backend.newBlobId();
    const writer = new LayeredBlobWriter(blob, this.backend.createLayer(blob, 1, 0, true), this.#host);
    this.#writers.add(writer);
    return writer;
  }

  async put(key: string, source: AsyncIterable<Uint8Array>): Promise<BlobInfo> {
    this.#assertOpen();
    // before taking a single byte from the source
    assertBlobKey(key);
    const writer = await this.createWriter();
    try {
      for await (const chunk of source) await writer.write(chunk);
      return await writer.commit(key);
    } catch (error) {
      // the original failure is the one worth reporting
      await writer.abort().catch((dropFailure: unknown) => this.log('dropping the bytes of a failed put failed', dropFailure));
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    this.#assertKey(key);
    const blob = await this.#snapshot(key);
    if (blob === undefined) throw new BlobNotFound(key);
    const size = sizeOf(blob.layers, blob.cuts);
    if (range !== undefined) assertRangeWithin(range, size);
    const start = range?.start ?? 0;
    const end = range === undefined ? size : range.end + 1;
    return Readable.from(bytesOf(this.backend, key, planRange(blob.layers, blob.cuts, start, end)), { objectMode: false });
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    this.#assertKey(key);
    const blob = await this.#snapshot(key);
    return blob && { size: sizeOf(blob.layers, blob.cuts) };
  }

  async writeAt(key: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<{ bytesWritten: number }> {
    this.#assertKey(key);
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`invalid offset ${offset}`);
    const { blob, seq } = await this.backend.reserveLayer(key);
    const upload = this.backend.createLayer(blob, seq, offset, false);
    let bytesWritten = 0;
    try {
      for await (const chunk of source) {
        if (chunk.byteLength === 0) continue;
        await upload.write(chunk);
        bytesWritten += chunk.byteLength;
      }
      await upload.finish();
    } catch (error) {
      await upload.abort().catch((dropFailure: unknown) => this.log('dropping a failed part failed', dropFailure));
      throw error;
    }
    // deleted while the part was written: like bytes written to a deleted file, they go with it
    if (!(await this.backend.isReferenced(blob))) {
      await this.backend.deleteLayers([upload.id]);
      return { bytesWritten };
    }
    await this.#quietly('dropping parts written again at the same offset failed', async () => {
      const rewritten = await this.backend.layers(blob, { min: offset, max: offset });
      await this.#deleteLayers(rewritten.filter((layer) => layer.seq < seq && layer.length <= bytesWritten));
    });
    return { bytesWritten };
  }

  async truncate(key: string, size: number): Promise<void> {
    this.#assertKey(key);
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid size ${size}`);
    for (let attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
      const blob = await this.#snapshot(key);
      if (blob === undefined) throw new BlobNotFound(key);
      // like a file: only ever cut shorter (a cut also sets the size, so a longer one would extend)
      if (sizeOf(blob.layers, blob.cuts) <= size) return;
      const seq = await this.backend.appendCut(key, blob.blob, size);
      if (seq === undefined) continue; // repointed meanwhile: cut what it points at now
      await this.#quietly('dropping parts cut away failed', () => this.#deleteLayers(hiddenLayers(blob.layers, [...blob.cuts, { seq, size }])));
      return;
    }
    throw new Error(`blob ${key} kept being replaced while it was truncated`);
  }

  async move(from: string, to: string): Promise<void> {
    this.#assertKey(from);
    assertBlobKey(to);
    const source = await this.backend.pointer(from);
    if (source === undefined) throw new BlobNotFound(from);
    if (from === to) return;
    // `to` takes the blob over in one write (a blob it held is replaced at once, as by a rename), then
    // `from` lets go. In between both keys name the blob: blobs are only deleted once no key names
    // them, so a crash there leaves one blob under two names, never a name without bytes. (Parts
    // written to `from` while it moves land in the blob too, as writes into a file being renamed do;
    // the callers never do that.)
    const previous = await this.backend.replacePointer(to, source);
    await this.backend.removePointer(from, source.blob);
    if (previous !== undefined && previous.blob !== source.blob) {
      await this.#quietly('dropping a replaced blob failed', () => this.#dropIfUnreferenced(previous.blob));
    }
  }

  async delete(key: string): Promise<void> {
    this.#assertKey(key);
    const removed = await this.backend.removePointer(key);
    if (removed !== undefined) await this.#quietly('dropping a deleted blob failed', () => this.#dropIfUnreferenced(removed.blob));
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.#assertKey(prefix);
    for await (const { key, blob } of this.backend.keysUnder(prefix)) {
      const removed = await this.backend.removePointer(key, blob);
      if (removed !== undefined) await this.#quietly('dropping a deleted blob failed', () => this.#dropIfUnreferenced(blob));
    }
  }

  list(prefix: string): AsyncIterable<ListedBlob> {
    this.#assertKey(prefix);
    return this.#listed(prefix);
  }

  /** the keys' cursor, and each key's size from its layers: one blob in memory at a time */
  async *#listed(prefix: string): AsyncGenerator<ListedBlob> {
    for await (const { key, changedAt } of this.backend.keysUnder(prefix)) {
      const blob = await this.#snapshot(key);
      // deleted since the cursor passed it
      if (blob !== undefined) yield { key, size: sizeOf(blob.layers, blob.cuts), modifiedAt: changedAt };
    }
  }

  /**
   * Finishes what a process that died during a commit left: a temporary layer older than
   * `staleAfterMs` is published if a key points at its blob (the commit got that far), else deleted.
   * Younger ones are left alone: their writer may be committing right now.
   */
  async sweep(staleAfterMs: number, now = Date.now()): Promise<void> {
    for await (const { id, blob, seq } of this.backend.staleTemporaryLayers(new Date(now - staleAfterMs))) {
      if (await this.backend.isReferenced(blob)) await this.backend.publishLayer(id, blob, seq);
      else await this.backend.deleteLayers([id]);
    }
  }

  /** Aborts writers still open (their bytes were never promised to anyone); open reads finish or fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#writers].map((writer) => writer.abort()));
    await this.backend.close();
  }

  async #adopt(key: string, blob: string, layerId: string): Promise<void> {
    const previous = await this.backend.replacePointer(key, { blob, seq: 1, cuts: [] });
    // visible from here on; the rest is housekeeping, which the sweep also does
    await this.#quietly('publishing a committed blob failed (the sweep will)', () => this.backend.publishLayer(layerId, blob, 1));
    if (previous !== undefined && previous.blob !== blob) {
      await this.#quietly('dropping a replaced blob failed', () => this.#dropIfUnreferenced(previous.blob));
    }
  }

  async #discard(blob: string, upload: LayerUpload, commitAttempted: boolean): Promise<void> {
    // a commit that failed on its answer may still have pointed the key at the blob: keep it then
    if (commitAttempted && (await this.backend.isReferenced(blob))) return;
    await upload.abort();
  }

  /**
   * The key's blob, its layers and cuts, read consistently: the pointer is read again after the
   * layers, because a blob replaced in between may have lost some of its files already.
   */
  async #snapshot(key: string): Promise<Snapshot | undefined> {
    for (let attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
      const pointer = await this.backend.pointer(key);
      if (pointer === undefined) return undefined;
      const layers = await this.backend.layers(pointer.blob);
      const again = await this.backend.pointer(key);
      if (again === undefined) return undefined;
      if (again.blob === pointer.blob) return { blob: again.blob, layers, cuts: again.cuts };
    }
    throw new Error(`blob ${key} kept being replaced while it was looked up`);
  }

  async #dropIfUnreferenced(blob: string): Promise<void> {
    if (await this.backend.isReferenced(blob)) return;
    await this.#deleteLayers(await this.backend.layers(blob));
  }

  async #deleteLayers(layers: readonly Layer[]): Promise<void> {
    if (layers.length > 0) await this.backend.deleteLayers(layers.map((layer) => layer.id));
  }

  async #quietly(failure: string, operation: () => Promise<void>): Promise<void> {
    try {
      await operation();
    } catch (error) {
      this.log(failure, error);
    }
  }

  #assertKey(key: string): void {
    this.#assertOpen();
    assertBlobKey(key);
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('blob store is closed');
  }
}
