import type { BlobInfo, BlobWriter } from '../ports/blobStore.js';
import { assertBlobKey } from './fs/validate.js';

type State = 'open' | 'committing' | 'committed' | 'aborted';

export const asError = (failure: unknown): Error => (failure instanceof Error ? failure : new Error(String(failure)));

/**
 * The life of a new blob written somewhere no key points at until commit, shared by the blob store
 * adapters: open → committing → committed, or aborted; the first failure makes the writer unusable but
 * for abort; commit and abort each run once, and an abort during a commit waits for its outcome.
 * A subclass writes the bytes, `publish`es them under a key, and `discard`s them.
 */
export abstract class StagedBlobWriter implements BlobWriter {
  protected state: State = 'open';
  /** the first write or commit failure; once set, only abort is useful */
  protected failure: unknown;
  protected size = 0;
  #commit: Promise<BlobInfo> | undefined;
  #abort: Promise<void> | undefined;

  get bytesWritten(): number {
    return this.size;
  }

  abstract write(chunk: Uint8Array): Promise<void>;
  /** waits for the writes, makes the bytes durable, then points `key` at them; answers their size */
  protected abstract publish(key: string): Promise<number>;
  /** drops the bytes of a writer now aborted; `commitAttempted`: a commit failed before */
  protected abstract discard(commitAttempted: boolean): Promise<void>;
  /** the writer is committed or aborted: its store stops tracking it */
  protected abstract done(): void;

  commit(key: string): Promise<BlobInfo> {
    try {
      // a bad key leaves the writer as it was: the caller may still commit elsewhere or abort
      assertBlobKey(key);
    } catch (error) {
      return Promise.reject(error);
    }
    const unusable = this.unusable();
    if (unusable !== undefined) return Promise.reject(unusable);
    this.state = 'committing';
    this.#commit = this.#commitTo(key);
    return this.#commit;
  }

  abort(): Promise<void> {
    this.#abort ??= this.#drop();
    return this.#abort;
  }

  /** why a write or commit cannot be taken now; undefined when it can */
  protected unusable(): Error | undefined {
    if (this.failure !== undefined) return asError(this.failure);
    if (this.state === 'committing' || this.state === 'committed') return new Error('blob writer already committed');
    if (this.state === 'aborted') return new Error('blob writer aborted');
    return undefined;
  }

  async #commitTo(key: string): Promise<BlobInfo> {
    try {
      const size = await this.publish(key);
      this.state = 'committed';
      this.done();
      return { size };
    } catch (error) {
      this.failure ??= error;
      throw error;
    }
  }

  async #drop(): Promise<void> {
    // handled: a commit under way fails to its own caller; the drop waits for it to end
    if (this.state === 'committing') await this.#commit?.catch(() => undefined);
    if (this.state === 'committed') return;
    const commitAttempted = this.state === 'committing';
    this.state = 'aborted';
    await this.discard(commitAttempted);
    this.done();
  }
}
