import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { BundleBlobMismatch, bundleBytes, bundleLayout, bundleRange, type BlobEntry } from '../../src/bundling/index.js';
import { collect, once, recordingReads, storeItems } from './support/blobs.js';
import { tempBlobStore, type TempBlobStore } from '../support/tempBlobStore.js';
import { arbundlesBundle, mixedItems } from './support/bundles.js';
import { seededRandom } from '../support/seededRandom.js';

describe('streaming a bundle from the blob store', () => {
  let blobs: TempBlobStore;
  let items: DataItem[];
  let entries: BlobEntry[];
  let expected: Buffer;
  before(async () => {
    // a 1.5 MiB item: several reads of the store's 1 MiB read chunks
    items = await mixedItems([10, 2000, 300 * 1024, 0, 1536 * 1024, 77]);
    expected = await arbundlesBundle(items);
  });
  beforeEach(async () => {
    blobs = await tempBlobStore();
    entries = await storeItems(blobs.store, items);
  });
  afterEach(() => blobs.dispose());

  it("yields arbundles' bundle of the items byte for byte", async () => {
    const streamed = await collect(bundleBytes(blobs.store, entries));
    expect(streamed.byteLength).to.equal(expected.byteLength);
    expect(streamed.equals(expected)).to.equal(true);
  });

  it('fails on a blob shorter than its declared size', async () => {
    const short = entries.map((e, i) => (i === 2 ? { ...e, size: e.size + 1 } : e));
    const error = await collect(bundleBytes(blobs.store, short)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(BundleBlobMismatch);
    expect((error as BundleBlobMismatch).message).to.equal(
      `blob ${entries[2]!.blobKey} holds ${entries[2]!.size} bytes, the bundle expects ${entries[2]!.size + 1}`,
    );
  });

  it('fails on a longer blob before yielding a byte past its declared size', async () => {
    const long = entries.map((e, i) => (i === 1 ? { ...e, size: e.size - 1 } : e));
    const layout = bundleLayout(long);
    const yielded: Uint8Array[] = [];
    let error: unknown;
    try {
      for await (const part of bundleBytes(blobs.store, long)) yielded.push(part);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(BundleBlobMismatch);
    expect((error as BundleBlobMismatch).message).to.equal(
      `blob ${entries[1]!.blobKey} holds at least ${entries[1]!.size} bytes, the bundle expects ${entries[1]!.size - 1}`,
    );
    // the header and item 0 went out; nothing of item 1 (its one read chunk was too long)
    expect(Buffer.concat(yielded).byteLength).to.equal(layout.items[1]!.offset);
  });

  it('checks the entries before yielding anything', async () => {
    const error = await collect(bundleBytes(blobs.store, [{ id: 'x', size: 1, blobKey: 'items/x' }])).catch((e: unknown) => e);
    expect((error as Error).message).to.equal('item id "x" is not base64url of 32 bytes');
  });

  it('yields any range equal to the same slice of the whole bundle', async () => {
    const layout = bundleLayout(entries);
    const edges = [
      0,
      1,
      31,
      32,
      layout.headerSize - 1,
      layout.headerSize,
      ...layout.items.flatMap((i) => [i.offset - 1, i.offset, i.offset + 1, i.offset + i.size - 1]),
    ];
    const random = seededRandom(7);
    const ranges: [number, number][] = [
      [0, layout.totalSize],
      [layout.totalSize, layout.totalSize],
    ];
    for (const edge of edges) ranges.push([edge, edge + 1], [edge, Math.min(layout.totalSize, edge + 256 * 1024)]);
    for (let i = 0; i < 40; i++) {
      const start = Math.floor(random() * layout.totalSize);
      ranges.push([start, start + Math.floor(random() * (layout.totalSize - start + 1))]);
    }
    for (const [start, end] of ranges) {
      const bytes = await collect(bundleRange(blobs.store, layout, start, end));
      expect(bytes.equals(expected.subarray(start, end)), `[${start}, ${end})`).to.equal(true);
    }
  });

  it('reads only the blobs and byte ranges a range covers', async () => {
    const { store, reads } = recordingReads(blobs.store);
    const layout = bundleLayout(entries);
    const [, one, two, , four] = layout.items;
    // from the last 10 bytes of item 1, over item 2 and the empty-payload item 3, into item 4
    await collect(bundleRange(store, layout, one!.offset + one!.size - 10, four!.offset + 5));
    expect(reads).to.deep.equal([
      { key: one!.blobKey, range: { start: one!.size - 10, end: one!.size - 1 } },
      { key: two!.blobKey, range: { start: 0, end: two!.size - 1 } },
      { key: layout.items[3]!.blobKey, range: { start: 0, end: layout.items[3]!.size - 1 } },
      { key: four!.blobKey, range: { start: 0, end: 4 } },
    ]);
  });

  it('reads no blob for a range inside the header', async () => {
    const { store, reads } = recordingReads(blobs.store);
    const layout = bundleLayout(entries);
    const bytes = await collect(bundleRange(store, layout, 10, layout.headerSize));
    expect(bytes.equals(expected.subarray(10, layout.headerSize))).to.equal(true);
    expect(reads).to.deep.equal([]);
  });

  it('refuses a range outside the bundle', async () => {
    const layout = bundleLayout(entries);
    const error = await collect(bundleRange(blobs.store, layout, 0, layout.totalSize + 1)).catch((e: unknown) => e);
    expect((error as Error).message).to.equal(`range [0, ${layout.totalSize + 1}) is outside the bundle's [0, ${layout.totalSize})`);
  });

  it('fails a range over a blob that became shorter', async () => {
    const layout = bundleLayout(entries);
    const last = layout.items.at(-1)!;
    await blobs.store.put(last.blobKey, once(new Uint8Array(3)));
    const error = await collect(bundleRange(blobs.store, layout, last.offset, layout.totalSize)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(BundleBlobMismatch);
    expect((error as Error).message).to.equal(`blob ${last.blobKey} holds 3 bytes, the bundle expects ${last.size}`);
  });
});
