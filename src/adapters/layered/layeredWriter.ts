import { asError, StagedBlobWriter } from '../stagedBlobWriter.js';
import type { LayerUpload } from './blobBackend.js';

/** What a writer needs from its store. */
export interface WriterHost {
  /** points `key` at the writer's blob (one finished layer), replacing whatever it pointed at */
  adopt(key: string, blob: string, layerId: string): Promise<void>;
  /** drops the writer's bytes, unless a failed commit turns out to have pointed a key at them */
  discard(blob: string, upload: LayerUpload, commitAttempted: boolean): Promise<void>;
  /** the writer is committed or aborted: the store stops tracking it */
  done(writer: LayeredBlobWriter): void;
}

/**
 * A new blob written as one layer under a temporary name, invisible to every key until commit
 * points a key at it. Writes go out one at a time in call order (each resolves once GridFS has the
 * bytes buffered or stored), so a caller that awaits each write gets backpressure and one that
 * doesn't still gets its bytes in order. Same states and messages as the fs writer (stagedBlobWriter.ts).
 */
export class LayeredBlobWriter extends StagedBlobWriter {
  #tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly blob: string,
    private readonly upload: LayerUpload,
    private readonly host: WriterHost,
  ) {
    super();
  }

  write(chunk: Uint8Array): Promise<void> {
    const unusable = this.unusable();
    if (unusable !== undefined) return Promise.reject(unusable);
    if (chunk.byteLength === 0) return Promise.resolve();
    const written = this.#tail.then(async () => {
      if (this.state === 'aborted') throw new Error('blob writer aborted');
      if (this.failure !== undefined) throw asError(this.failure);
      await this.upload.write(chunk);
      this.size += chunk.byteLength;
    });
    this.#tail = written.catch((error: unknown) => {
      if (this.state !== 'aborted') this.failure ??= error;
    });
    return written;
  }

  protected async publish(key: string): Promise<number> {
    await this.#tail;
    if (this.failure !== undefined) throw asError(this.failure);
    // the layer exists (durably) before any key points at it
    const size = await this.upload.finish();
    await this.host.adopt(key, this.blob, this.upload.id);
    return size;
  }

  protected async discard(commitAttempted: boolean): Promise<void> {
    // a write already handed to GridFS finishes before its upload is dropped; queued ones see 'aborted'
    await this.#tail;
    await this.host.discard(this.blob, this.upload, commitAttempted);
  }

  protected done(): void {
    this.host.done(this);
  }
}
