import type { FileHandle } from 'node:fs/promises';
import { unlink } from 'node:fs/promises';
import { asError, StagedBlobWriter } from '../stagedBlobWriter.js';
import { diskFault } from './diskFaults.js';
import { isAbsent } from './errno.js';
import { writeAll } from './writeAll.js';

/** Chunks queued while a write is in flight go out together; pwritev takes at most IOV_MAX (1024) buffers. */
const MAX_CHUNKS_PER_WRITE = 1024;

interface QueuedWrite {
  chunk: Uint8Array;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface FsWriterPaths {
  /** the writer's own file under the store's temp directory */
  temp: string;
  /** absolute path of a (validated) key */
  pathOf: (key: string) => string;
  /** puts the synced temp file at a path durably, replacing the blob there (whichever kind) */
  place: (from: string, to: string) => Promise<void>;
}

/**
 * Writes go straight from the caller's buffers to the temp file at explicit offsets. One write is in
 * flight at a time: a caller that awaits each write gets one syscall per chunk and natural
 * backpressure; one that doesn't still gets its bytes in call order (chunks given in one go, or
 * queued while a write is in flight, go out as one pwritev).
 */
export class FsBlobWriter extends StagedBlobWriter {
  #handle: FileHandle | undefined;
  #queue: QueuedWrite[] = [];
  #draining: Promise<void> | undefined;

  constructor(
    handle: FileHandle,
    private readonly paths: FsWriterPaths,
    /** told once the writer is committed or aborted, so the store stops tracking it */
    private readonly onDone: (writer: FsBlobWriter) => void,
  ) {
    super();
    this.#handle = handle;
  }

  write(chunk: Uint8Array): Promise<void> {
    const unusable = this.unusable();
    if (unusable !== undefined) return Promise.reject(unusable);
    if (chunk.byteLength === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#queue.push({ chunk, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // chunks given in one burst (src/gatheredWrites.ts) go out as one pwritev, the first not alone
    await Promise.resolve();
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_CHUNKS_PER_WRITE);
      const handle = this.#handle;
      try {
        if (handle === undefined) throw new Error('blob writer is closed');
        await writeAll(
          handle,
          batch.map((queued) => queued.chunk),
          this.size,
        );
        for (const queued of batch) {
          this.size += queued.chunk.byteLength;
          queued.resolve();
        }
      } catch (caught) {
        const error = diskFault(caught);
        this.failure ??= error;
        for (const queued of [...batch, ...this.#queue.splice(0)]) queued.reject(error);
      }
    }
    this.#draining = undefined;
  }

  protected async publish(key: string): Promise<number> {
    await this.#draining;
    if (this.failure !== undefined) throw asError(this.failure);
    try {
      // data before name: the rename must never expose a file whose bytes are not on disk yet
      await this.#handle?.datasync();
      await this.#closeHandle();
      await this.paths.place(this.paths.temp, this.paths.pathOf(key));
    } catch (error) {
      throw diskFault(error);
    }
    return this.size;
  }

  protected async discard(): Promise<void> {
    const aborted = new Error('blob writer aborted');
    for (const queued of this.#queue.splice(0)) queued.reject(aborted);
    // a write the OS is already doing must finish before its handle is closed
    await this.#draining;
    await this.#closeHandle();
    try {
      await unlink(this.paths.temp);
    } catch (error) {
      if (!isAbsent(error)) throw error;
    }
  }

  protected done(): void {
    this.onDone(this);
  }

  async #closeHandle(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
  }
}
