import type { BlobInfo, BlobWriter } from '../../ports/blobStore.js';
import { assertBlobKey } from '../fs/validate.js';
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

type State = 'open' | 'committing' | 'committed' | 'aborted';

/**
 * A new blob written as one layer under a temporary name, invisible to every key until commit
 * points a key at it. Writes go out one at a time in call order (each resolves once GridFS has the
 * bytes buffered or stored), so a caller that awaits each write gets backpressure and one that
 * doesn't still gets its bytes in order. Same states and messages as the fs writer.
 */
export class LayeredBlobWriter implements BlobWriter {
  #state: State = 'open';
  /** the first write or commit failure; once set, only abort is useful */
  #failure: unknown;
  #size = 0;
  #tail: Promise<void> = Promise.resolve();
  #commit: Promise<BlobInfo> | undefined;
  #abort: Promise<void> | undefined;

  constructor(
    private readonly blob: string,
    private readonly upload: LayerUpload,
    private readonly host: WriterHost,
  ) {}

  get bytesWritten(): number {
    return this.#size;
  }

  write(chunk: Uint8Array): Promise<void> {
    const unusable = this.#unusable();
    if (unusable !== undefined) return Promise.reject(unusable);
    if (chunk.byteLength === 0) return Promise.resolve();
    const written = this.#tail.then(async () => {
      if (this.#state === 'aborted') throw new Error('blob writer aborted');
      if (this.#failure !== undefined) throw asError(this.#failure);
      await this.upload.write(chunk);
      this.#size += chunk.byteLength;
    });
    this.#tail = written.catch((error: unknown) => {
      if (this.#state !== 'aborted') this.#failure ??= error;
    });
    return written;
  }

  commit(key: string): Promise<BlobInfo> {
    try {
      // a bad key leaves the writer as it was: the caller may still commit elsewhere or abort
      assertBlobKey(key);
    } catch (error) {
      return Promise.reject(error);
    }
    const unusable = this.#unusable();
    if (unusable !== undefined) return Promise.reject(unusable);
    this.#state = 'committing';
    this.#commit = this.#commitTo(key);
    return this.#commit;
  }

  abort(): Promise<void> {
    this.#abort ??= this.#drop();
    return this.#abort;
  }

  async #commitTo(key: string): Promise<BlobInfo> {
    try {
      await this.#tail;
      if (this.#failure !== undefined) throw asError(this.#failure);
      // the layer exists (durably) before any key points at it
      const size = await this.upload.finish();
      await this.host.adopt(key, this.blob, this.upload.id);
      this.#state = 'committed';
      this.host.done(this);
      return { size };
    } catch (error) {
      this.#failure ??= error;
      throw error;
    }
  }

  async #drop(): Promise<void> {
    if (this.#state === 'committing') await this.#commit?.catch(() => undefined);
    if (this.#state === 'committed') return;
    const commitAttempted = this.#state === 'committing';
    this.#state = 'aborted';
    // a write already handed to GridFS finishes before its upload is dropped; queued ones see 'aborted'
    await this.#tail;
    await this.host.discard(this.blob, this.upload, commitAttempted);
    this.host.done(this);
  }

  #unusable(): Error | undefined {
    if (this.#failure !== undefined) return asError(this.#failure);
    if (this.#state === 'committing' || this.#state === 'committed') return new Error('blob writer already committed');
    if (this.#state === 'aborted') return new Error('blob writer aborted');
    return undefined;
  }
}

const asError = (failure: unknown): Error => (failure instanceof Error ? failure : new Error(String(failure)));
