import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { BundleItemsDamaged, bundleBytes, bundleLayout, checkedBundleBytes, computeDataRoot, type CheckedEntry } from '../../src/bundling/index.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { collect, once, storeItems } from './support/blobs.js';
import { tempBlobStore, type TempBlobStore } from '../support/tempBlobStore.js';
import { mixedItems } from './support/bundles.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A bundle's bytes with each item's blob checked against its accepted size and sha256. */
describe('streaming a bundle while checking each blob against its acceptance', () => {
  let blobs: TempBlobStore;
  let items: DataItem[];
  let entries: Required<CheckedEntry>[];
  before(async () => {
    // a 1.5 MiB item: several reads of the store's 1 MiB read chunks
    items = await mixedItems([10, 2000, 300 * 1024, 0, 1536 * 1024, 77]);
  });
  beforeEach(async () => {
    blobs = await tempBlobStore();
    entries = (await storeItems(blobs.store, items)).map((e, i) => ({ ...e, sha256: sha256(items[i]!.getRaw()) }));
  });
  afterEach(() => blobs.dispose());

  /** what the stream threw, and how many bytes it yielded first */
  async function run(list: readonly CheckedEntry[]): Promise<{ error: unknown; yielded: number }> {
    let yielded = 0;
    try {
      for await (const part of checkedBundleBytes(blobs.store, list)) yielded += part.byteLength;
      return { error: undefined, yielded };
    } catch (error) {
      return { error, yielded };
    }
  }
  const replace = (i: number, bytes: Uint8Array) => blobs.store.put(entries[i]!.blobKey, once(bytes));

  it('yields the same bytes as the unchecked stream when every blob is intact, so the data root is the same', async () => {
    const checked = await collect(checkedBundleBytes(blobs.store, entries));
    expect(checked.equals(await collect(bundleBytes(blobs.store, entries)))).to.equal(true);
    const roots = await Promise.all([computeDataRoot(checkedBundleBytes(blobs.store, entries)), computeDataRoot(bundleBytes(blobs.store, entries))]);
    expect(Buffer.from(roots[0].dataRoot).equals(Buffer.from(roots[1].dataRoot))).to.equal(true);
  });

  it('names every damaged item after reading them all: changed bytes, a blob cut short, a longer one, a lost one', async () => {
    const changed = Buffer.from(items[1]!.getRaw());
    changed[changed.length - 1]! ^= 0x01;
    await replace(1, changed);
    const short = items[2]!.getRaw().subarray(0, 1000);
    await replace(2, short);
    await replace(4, Buffer.concat([items[4]!.getRaw(), Buffer.from('more')]));
    await blobs.store.delete(entries[5]!.blobKey);

    const { error, yielded } = await run(entries);
    expect(error).to.be.instanceOf(BundleItemsDamaged);
    expect((error as BundleItemsDamaged).damaged).to.deep.equal([
      { id: items[1]!.id, blobKey: entries[1]!.blobKey, found: 'digest', size: changed.length, sha256: sha256(changed) },
      { id: items[2]!.id, blobKey: entries[2]!.blobKey, found: 'short', size: 1000, sha256: sha256(short) },
      { id: items[4]!.id, blobKey: entries[4]!.blobKey, found: 'long', size: items[4]!.getRaw().length + 4 },
      { id: items[5]!.id, blobKey: entries[5]!.blobKey, found: 'missing' },
    ]);
    // up to the end of the first damaged item: nothing after it is worth hashing into a tree
    expect(yielded).to.equal(bundleLayout(entries).items[2]!.offset);
  });

  it('checks sizes only for an item whose sha256 is not given', async () => {
    const changed = Buffer.from(items[1]!.getRaw());
    changed[0]! ^= 0x01;
    await replace(1, changed);
    const { sha256: _, ...unknownDigest } = entries[1]!;
    expect((await run([entries[0]!, unknownDigest, entries[2]!])).error).to.equal(undefined);
  });

  it('throws what the store throws when a blob cannot be read, which is no damage', async () => {
    const failing: BlobStore = {
      ...blobs.store,
      read: async (key, range) => {
        if (key === entries[3]!.blobKey) throw new Error('disk unavailable');
        return blobs.store.read(key, range);
      },
    };
    const error = await collect(checkedBundleBytes(failing, entries)).catch((e: unknown) => e);
    expect((error as Error).message).to.equal('disk unavailable');
  });
});
