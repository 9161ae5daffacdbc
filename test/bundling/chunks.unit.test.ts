import { expect } from 'chai';
import Arweave from 'arweave';
import type { DataItem } from 'arbundles';
import {
  BundleChunkMismatch,
  bundleBytes,
  bundleLayout,
  chunkUploads,
  computeDataRoot,
  type BlobEntry,
  type ChunkUpload,
  type DataTree,
} from '../../src/bundling/index.js';
import { loadTestJwk } from '../fixtures/testWallet.js';
import { once, storeItems } from './support/blobs.js';
import { tempBlobStore, type TempBlobStore } from '../support/tempBlobStore.js';
import { arbundlesBundle, mixedItems } from './support/bundles.js';

async function all<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of source) out.push(value);
  return out;
}

describe('chunk upload bodies', () => {
  const arweave = Arweave.init({});
  let blobs: TempBlobStore;
  let items: DataItem[];
  let entries: BlobEntry[];
  let bundle: Buffer;
  let tree: DataTree;
  before(async () => {
    // about 1.3 MiB: small items straddle chunk edges, one item spans two whole chunks
    items = await mixedItems([100, 200 * 1024, 3000, 600 * 1024, 50, 9000, 300 * 1024, 12, 150 * 1024]);
    bundle = await arbundlesBundle(items);
  });
  beforeEach(async () => {
    blobs = await tempBlobStore();
    entries = await storeItems(blobs.store, items);
    tree = await computeDataRoot(bundleBytes(blobs.store, entries));
  });
  afterEach(() => blobs.dispose());

  it("equals arweave-js' getChunk for every chunk, in order", async () => {
    const tx = await arweave.createTransaction({ data: bundle, last_tx: 'a'.repeat(43), reward: '1' }, loadTestJwk());
    await tx.prepareChunks(bundle);
    const expected: ChunkUpload[] = tx.chunks!.chunks.map((_, i) => tx.getChunk(i, bundle));
    expect(expected).to.have.length(5);
    expect(await all(chunkUploads(blobs.store, bundleLayout(entries), tree))).to.deep.equal(expected);
  });

  it('resumes from a given chunk', async () => {
    const layout = bundleLayout(entries);
    const whole = await all(chunkUploads(blobs.store, layout, tree));
    expect(await all(chunkUploads(blobs.store, layout, tree, { fromIndex: 4 }))).to.deep.equal(whole.slice(4));
  });

  it('fails when a blob changed after the data root was computed', async () => {
    const layout = bundleLayout(entries);
    const changed = Buffer.from(items[3]!.getRaw());
    changed[changed.byteLength - 1]! ^= 1;
    await blobs.store.put(entries[3]!.blobKey, once(changed));
    const bodies: ChunkUpload[] = [];
    let error: unknown;
    try {
      for await (const body of chunkUploads(blobs.store, layout, tree)) bodies.push(body);
    } catch (e) {
      error = e;
    }
    const lastByte = layout.items[3]!.offset + layout.items[3]!.size - 1;
    const badChunk = tree.chunks.findIndex((c) => c.minByteRange <= lastByte && lastByte < c.maxByteRange);
    expect(error).to.be.instanceOf(BundleChunkMismatch);
    expect((error as BundleChunkMismatch).chunkIndex).to.equal(badChunk);
    expect(bodies).to.have.length(badChunk);
  });

  it('refuses a tree of another size than the bundle', async () => {
    const layout = bundleLayout(entries.slice(1));
    const error = await all(chunkUploads(blobs.store, layout, tree)).catch((e: Error) => e.message);
    expect(error).to.equal(`data tree of ${tree.dataSize} bytes for a bundle of ${layout.totalSize}`);
  });
});
