import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import type { BlobStore, ByteRange } from '../../src/ports/blobStore.js';
import {
  BundleChunkMismatch,
  bundleBytes,
  bundleLayout,
  chunkUploads,
  computeDataRoot,
  PostedChunks,
  postChunks,
  type BlobEntry,
  type BundleLayout,
  type ChunkUpload,
  type DataTree,
} from '../../src/bundling/index.js';
import { once, storeItems } from './support/blobs.js';
import { tempBlobStore, type TempBlobStore } from '../support/tempBlobStore.js';
import { mixedItems } from './support/bundles.js';
import { eventually } from '../support/eventually.js';

/** A promise settled from outside: a post that finishes when the test says so. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** the blob store, counting the range reads that started: one per chunk body read */
function countingReads(store: BlobStore) {
  const counter = { reads: 0 };
  const counted: BlobStore = Object.create(store, {
    read: {
      value: (key: string, range?: Parameters<BlobStore['read']>[1]) => {
        counter.reads++;
        return store.read(key, range);
      },
    },
  });
  return { store: counted, counter };
}

/** the chunk's index in the tree, from the offset of its last byte */
const indexOf = (tree: DataTree, chunk: ChunkUpload) => tree.chunks.findIndex((c) => c.maxByteRange - 1 === Number(chunk.offset));

describe('posting chunks several at a time', () => {
  let blobs: TempBlobStore;
  let items: DataItem[];
  let entries: BlobEntry[];
  let layout: BundleLayout<BlobEntry>;
  let tree: DataTree;
  let bodies: ChunkUpload[];
  before(async () => {
    // about 2.4 MiB, 10 chunks: each item spans one and a half chunks
    items = await mixedItems(Array.from({ length: 6 }, () => 400 * 1024));
  });
  beforeEach(async () => {
    blobs = await tempBlobStore();
    entries = await storeItems(blobs.store, items);
    layout = bundleLayout(entries);
    tree = await computeDataRoot(bundleBytes(blobs.store, entries));
    bodies = [];
    for await (const body of chunkUploads(blobs.store, layout, tree)) bodies.push(body);
  });
  afterEach(() => blobs.dispose());

  it('has N posts in flight at once, reads a chunk only when a post slot is free, and posts every chunk once with its own body', async () => {
    expect(tree.chunkCount).to.equal(10);
    const { store, counter } = countingReads(blobs.store);
    const pending = new Map<number, ReturnType<typeof deferred>>();
    const sent: ChunkUpload[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    let finished = 0;
    const posted = new PostedChunks(tree.chunkCount);
    const done = postChunks({
      blobStore: store,
      layout,
      tree,
      posted,
      concurrency: 3,
      post: (chunk) => {
        sent.push(chunk);
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        const post = deferred();
        pending.set(indexOf(tree, chunk), post);
        return post.promise.finally(() => {
          inFlight--;
          finished++;
        });
      },
    });
    // answered last first, so the chunks are taken out of order
    while (sent.length < tree.chunkCount || pending.size > 0) {
      await eventually(
        () => pending.size,
        (n) => n === Math.min(3, tree.chunkCount - finished),
        `${Math.min(3, tree.chunkCount - finished)} posts in flight`,
        10_000,
        0,
      );
      // memory: no chunk body is read beyond the ones posted (each item a chunk touches is one range read)
      const readsPerChunk = sent.map((c) => readsOf(layout, tree, indexOf(tree, c))).reduce((a, b) => a + b, 0);
      expect(counter.reads, 'range reads').to.equal(readsPerChunk);
      const last = Math.max(...pending.keys());
      pending.get(last)!.resolve();
      pending.delete(last);
    }
    await done;
    expect(mostInFlight).to.equal(3);
    expect(sent.map((c) => indexOf(tree, c)).sort((a, b) => a - b)).to.deep.equal([...Array(10).keys()]);
    expect([...sent].sort((a, b) => Number(a.offset) - Number(b.offset))).to.deep.equal(bodies);
    expect([posted.upTo, posted.complete]).to.deep.equal([10, true]);
  });

  it('after a failure takes no more chunks, lets the posts in flight finish, then throws it; a retry posts only the chunks not taken', async () => {
    const posted = new PostedChunks(tree.chunkCount);
    const pending = new Map<number, ReturnType<typeof deferred>>();
    const first = postChunks({
      blobStore: blobs.store,
      layout,
      tree,
      posted,
      concurrency: 4,
      post: (chunk) => {
        const post = deferred();
        pending.set(indexOf(tree, chunk), post);
        return post.promise;
      },
    });
    let settled = false;
    const outcome = first.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    void outcome.finally(() => (settled = true));
    await eventually(
      () => pending.size,
      (n) => n === 4,
      'four posts in flight',
      10_000,
      0,
    );
    pending.get(0)!.resolve();
    await eventually(
      () => pending.size,
      (n) => n === 5,
      'chunk 4 taken after chunk 0',
      10_000,
      0,
    );
    pending.get(2)!.reject(new Error('HTTP 500 for chunk 2'));
    pending.get(1)!.resolve();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled, 'settled while posts were in flight').to.equal(false);
    pending.get(3)!.resolve();
    pending.get(4)!.reject(new Error('HTTP 500 for chunk 4'));
    expect(await outcome).to.equal('HTTP 500 for chunk 2');
    expect(
      [...pending.keys()].sort((a, b) => a - b),
      'chunks taken',
    ).to.deep.equal([0, 1, 2, 3, 4]);
    expect([posted.upTo, posted.has(3), posted.has(4), posted.complete]).to.deep.equal([2, true, false, false]);

    const resent: number[] = [];
    await postChunks({ blobStore: blobs.store, layout, tree, posted, concurrency: 4, post: async (chunk) => void resent.push(indexOf(tree, chunk)) });
    expect(resent.sort((a, b) => a - b)).to.deep.equal([2, 4, 5, 6, 7, 8, 9]);
    expect(posted.complete).to.equal(true);
  });

  it('stops at a chunk that no longer matches the tree, after the posts in flight', async () => {
    const changed = Buffer.from(items[2]!.getRaw());
    changed[100]! ^= 1;
    await blobs.store.put(entries[2]!.blobKey, once(changed));
    const bad = tree.chunks.findIndex((c) => c.minByteRange <= layout.items[2]!.offset + 100 && layout.items[2]!.offset + 100 < c.maxByteRange);
    // the bad chunk's last blob read and closed (the chunk then checked, in the same turn): a post past the
    // bad chunk finishes only after that (the chunk spans two blobs: the changed one is read first)
    const last = tree.chunk(bad).maxByteRange - 1;
    const lastItem = layout.items.find((item) => item.offset <= last && last < item.offset + item.size)!;
    const lastInBlob = last - lastItem.offset;
    const badRead = deferred();
    const store: BlobStore = Object.create(blobs.store, {
      read: {
        value: async (key: string, range?: ByteRange) => {
          const stream = await blobs.store.read(key, range);
          if (key === lastItem.blobKey && range && range.start <= lastInBlob && lastInBlob <= range.end)
            stream.once('close', () => setImmediate(badRead.resolve));
          return stream;
        },
      },
    });
    const posted = new PostedChunks(tree.chunkCount);
    const sent: number[] = [];
    const post = async (chunk: ChunkUpload) => {
      const index = indexOf(tree, chunk);
      sent.push(index);
      if (index > bad) await badRead.promise;
    };
    const error = await postChunks({ blobStore: store, layout, tree, posted, concurrency: 2, post }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(BundleChunkMismatch);
    expect((error as BundleChunkMismatch).chunkIndex).to.equal(bad);
    // the other worker's chunk, in flight, was let finish; then nothing more was taken
    const before = [...Array(bad).keys()];
    expect(sent.sort((a, b) => a - b)).to.deep.equal([...before, bad + 1]);
    expect([posted.upTo, posted.has(bad), posted.has(bad + 1)]).to.deep.equal([bad, false, true]);
  });

  it('takes no chunk once its signal is aborted; the post in flight finishes', async () => {
    const stop = new AbortController();
    const posted = new PostedChunks(tree.chunkCount);
    const sent: number[] = [];
    const error = await postChunks({
      blobStore: blobs.store,
      layout,
      tree,
      posted,
      concurrency: 2,
      signal: stop.signal,
      post: async (chunk) => {
        sent.push(indexOf(tree, chunk));
        if (sent.length === 3) stop.abort();
      },
    }).catch((e: Error) => e.name);
    expect(error).to.equal('AbortError');
    expect(sent.length).to.be.within(3, 4);
    expect(posted.upTo).to.equal(sent.length);
  });

  it('counts the contiguous prefix of chunks taken in any order', () => {
    const posted = new PostedChunks(5);
    posted.add(2);
    posted.add(1);
    expect([posted.upTo, posted.has(1), posted.has(2), posted.has(0)]).to.deep.equal([0, true, true, false]);
    posted.add(0);
    expect(posted.upTo).to.equal(3);
    posted.add(4);
    posted.add(4);
    expect([posted.upTo, posted.complete]).to.deep.equal([3, false]);
    posted.add(3);
    expect([posted.upTo, posted.complete]).to.deep.equal([5, true]);
  });
});

/** range reads of one chunk: one per item (or header) the chunk touches */
function readsOf(layout: BundleLayout<BlobEntry>, tree: DataTree, index: number): number {
  const { minByteRange, maxByteRange } = tree.chunk(index);
  return layout.items.filter((item) => item.offset < maxByteRange && item.offset + item.size > minByteRange).length;
}
