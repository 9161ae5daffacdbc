import type { BlobStore } from '../ports/blobStore.js';
import type { BlobEntry } from './bundleStream.js';
import { checkTreeFits, chunkUploadAt, type ChunkUpload } from './chunks.js';
import type { BundleLayout } from './layout.js';
import type { DataTree } from './merkle.js';

/**
 * Which chunks of a transaction's data the gateway took, as far as this process knows (it is not
 * recorded in events: after a restart a post starts again from the first chunk, which is harmless,
 * chunks being idempotent). Chunks posted side by side are taken out of order, so what is known is
 * the contiguous prefix (`upTo`) and the few taken beyond it, which a resumed post skips.
 */
export class PostedChunks {
  #upTo = 0;
  /** taken, past `upTo`: at most the posts that were in flight beside the one that failed */
  readonly #ahead = new Set<number>();

  constructor(readonly count: number) {}

  /** every chunk before this index was taken: a post resumes here */
  get upTo(): number {
    return this.#upTo;
  }

  get complete(): boolean {
    return this.#upTo >= this.count;
  }

  has(index: number): boolean {
    return index < this.#upTo || this.#ahead.has(index);
  }

  add(index: number): void {
    if (this.has(index)) return;
    this.#ahead.add(index);
    while (this.#ahead.delete(this.#upTo)) this.#upTo++;
  }
}

export interface PostChunksInput {
  blobStore: BlobStore;
  layout: BundleLayout<BlobEntry>;
  tree: DataTree;
  /** updated as each chunk is taken; the chunks it holds already are not posted again */
  posted: PostedChunks;
  /** chunks read and posted at once (at least 1) */
  concurrency: number;
  /** posts one chunk; resolves once the gateway took it */
  post(chunk: ChunkUpload): Promise<void>;
  /** stops taking chunks; the posts in flight see it through `post`'s own signal */
  signal?: AbortSignal;
}

/**
 * Posts every chunk not yet taken, `concurrency` at a time: over a gateway far away each post is
 * mostly a round trip, so one at a time is bounded by the latency, not the bandwidth. Each worker
 * takes the next chunk, reads it by range (hash-checked, as `chunkUploads`), posts it, and only then
 * takes another: at most `concurrency` chunk bodies are in memory, whatever the bundle's size.
 *
 * The first failure (a post, a read, a chunk that no longer matches the tree) stops the workers
 * from taking more; the posts already in flight are let finish (each bounded by the gateway's time
 * limit), so what the gateway took is known and a retry posts only the rest. Then that first
 * failure is thrown: nothing is left running and nothing rejects unobserved.
 */
export async function postChunks({ blobStore, layout, tree, posted, concurrency, post, signal }: PostChunksInput): Promise<void> {
  checkTreeFits(layout, tree);
  if (posted.count !== tree.chunkCount) throw new RangeError(`progress of ${posted.count} chunks for a tree of ${tree.chunkCount}`);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError(`cannot post ${concurrency} chunks at once`);
  let next = posted.upTo;
  let failure: { error: unknown } | undefined;
  const claim = (): number | undefined => {
    while (next < tree.chunkCount && posted.has(next)) next++;
    return next < tree.chunkCount ? next++ : undefined;
  };
  const worker = async (): Promise<void> => {
    while (!failure) {
      const index = claim();
      if (index === undefined) return;
      try {
        signal?.throwIfAborted();
        await post(await chunkUploadAt(blobStore, layout, tree, index));
        posted.add(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tree.chunkCount - posted.upTo) }, worker));
  if (failure) throw failure.error;
}
