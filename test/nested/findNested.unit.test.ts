import { expect } from 'chai';
import { DataItem } from 'arbundles';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { findNestedItems, walkNested } from '../../src/app/nested/findNested.js';
import { signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { bundleBytes, bundleItem, expectedPlaces, twoLevels, type TwoLevels } from './support/nestedBundles.js';
import { storedRoot } from './support/blobs.js';
import { tempBlobStore, type TempBlobStore } from '../support/tempBlobStore.js';
import { fakeEntry, rawBundle } from './support/fakeEntries.js';

/** 32-byte little-endian, as the bundle header writes numbers */
const le32 = (n: number) => {
  const bytes = Buffer.alloc(32);
  bytes.writeUIntLE(n, 0, 6);
  return bytes;
};

describe('finding the items nested in a bundle payload', function () {
  this.timeout(20_000);
  let blobs: TempBlobStore;
  let store: BlobStore;
  let nested: TwoLevels;
  before(async () => {
    blobs = await tempBlobStore();
    store = blobs.store;
    nested = await twoLevels();
  });
  after(() => blobs.dispose());

  it('lists the items at every depth, parents before children, with their places and content types', async () => {
    const found = await findNestedItems(store, await storedRoot(store, nested.root));
    expect(found).to.deep.equal({ items: nested.expected, unindexed: [] });
  });

  it('places each item where its own signed bytes are in the root item', async () => {
    const raw = nested.root.getRaw();
    const { items } = await findNestedItems(store, await storedRoot(store, nested.root));
    for (const item of items) {
      const parsed = new DataItem(raw.subarray(item.offsetInRootItem, item.offsetInRootItem + item.rawContentLength));
      expect(parsed.id).to.equal(item.id);
      expect(await parsed.isValid()).to.equal(true);
      expect(parsed.getStartOfData()).to.equal(item.payloadDataStart);
    }
  });

  it('finds nothing in an item without both bundle tags', async () => {
    const payload = await bundleBytes([nested.first]);
    const onlyFormat = await bundleItem(signers.ethereum(), payload, [{ name: 'Bundle-Format', value: 'binary' }]);
    const otherVersion = await bundleItem(signers.ethereum(), payload, [
      { name: 'Bundle-Format', value: 'binary' },
      { name: 'Bundle-Version', value: '1.0.0' },
    ]);
    for (const item of [onlyFormat, otherVersion]) {
      expect(await findNestedItems(store, await storedRoot(store, item))).to.deep.equal({ items: [], unindexed: [] });
    }
  });

  it('indexes an empty bundle as having no items', async () => {
    const root = await bundleItem(signers.ethereum(), le32(0));
    expect(await findNestedItems(store, await storedRoot(store, root))).to.deep.equal({ items: [], unindexed: [] });
  });

  it('indexes nothing of a bundle whose item sizes do not add up to its length', async () => {
    const payload = Buffer.concat([await bundleBytes([nested.first, nested.last]), Buffer.from([0])]);
    const root = await bundleItem(signers.ethereum(), payload);
    expect(await findNestedItems(store, await storedRoot(store, root))).to.deep.equal({
      items: [],
      unindexed: [{ id: root.id, reason: `items end at byte ${payload.length - 1} of a bundle of ${payload.length} bytes` }],
    });
  });

  it('indexes nothing of a bundle whose last item runs past its end', async () => {
    const payload = await bundleBytes([nested.first, nested.last]);
    const lastSize = nested.last.getRaw().length;
    le32(lastSize + 1).copy(payload, 32 + 64);
    const root = await bundleItem(signers.ethereum(), payload);
    expect(await findNestedItems(store, await storedRoot(store, root))).to.deep.equal({
      items: [],
      unindexed: [{ id: root.id, reason: `item 1 of ${lastSize + 1} bytes ends past the bundle's ${payload.length} bytes` }],
    });
  });

  it('indexes nothing of a bundle whose header counts more items than its bytes can list', async () => {
    const payload = await bundleBytes([nested.first]);
    le32(1_000_000).copy(payload, 0);
    const root = await bundleItem(signers.ethereum(), payload);
    expect(await findNestedItems(store, await storedRoot(store, root))).to.deep.equal({
      items: [],
      unindexed: [{ id: root.id, reason: `a header of 1000000 items does not fit in ${payload.length} bytes` }],
    });
  });

  it('indexes nothing of a bundle whose count does not fit in a safe integer', async () => {
    const payload = await bundleBytes([nested.first]);
    payload[31] = 1;
    const root = await bundleItem(signers.ethereum(), payload);
    expect((await findNestedItems(store, await storedRoot(store, root))).unindexed).to.deep.equal([
      { id: root.id, reason: `a header of more than 2^53 items does not fit in ${payload.length} bytes` },
    ]);
  });

  it('indexes nothing of a payload too short for an item count', async () => {
    const root = await bundleItem(signers.ethereum(), Buffer.alloc(31));
    expect(await findNestedItems(store, await storedRoot(store, root))).to.deep.equal({
      items: [],
      unindexed: [{ id: root.id, reason: 'a payload of 31 bytes has no room for an item count' }],
    });
  });

  it('leaves out an item whose header does not parse, and keeps its neighbours', async () => {
    const payload = await bundleBytes([nested.first, nested.last]);
    const lastStart = 32 + 2 * 64 + nested.first.getRaw().length;
    payload.writeUInt16LE(999, lastStart); // no such signature type
    const root = await bundleItem(signers.ethereum(), payload);
    const found = await findNestedItems(store, await storedRoot(store, root));
    expect(found).to.deep.equal({
      items: [expectedPlaces(root, 0, [nested.first, nested.last], 1)[0]!],
      unindexed: [{ id: nested.last.id, reason: `no valid data item header at byte ${lastStart} of the bundle in ${root.id}` }],
    });
  });

  it('leaves out an item whose id is not the one the bundle header gives', async () => {
    const payload = await bundleBytes([nested.first, nested.last]);
    const listed = Buffer.alloc(32, 1);
    listed.copy(payload, 32 + 32); // the first entry's id
    const root = await bundleItem(signers.ethereum(), payload);
    const found = await findNestedItems(store, await storedRoot(store, root));
    expect(found).to.deep.equal({
      items: [expectedPlaces(root, 0, [nested.first, nested.last], 1)[1]!],
      unindexed: [{ id: listed.toString('base64url'), reason: `the item at byte 160 of the bundle in ${root.id} has id ${nested.first.id}` }],
    });
  });

  it("indexes the items of a malformed inner bundle's parent, and nothing under it", async () => {
    const innerPayload = Buffer.concat([await bundleBytes([nested.inner1]), Buffer.from([1, 2, 3])]);
    const middle = await bundleItem(signers.solana(), innerPayload);
    const root = await bundleItem(signers.arweave(), await bundleBytes([nested.first, middle]));
    const found = await findNestedItems(store, await storedRoot(store, root));
    expect(found).to.deep.equal({
      items: expectedPlaces(root, 0, [nested.first, middle], 1),
      unindexed: [{ id: middle.id, reason: `items end at byte ${innerPayload.length - 3} of a bundle of ${innerPayload.length} bytes` }],
    });
  });

  it('stops at the depth limit and says which bundle it did not open', async () => {
    const found = await findNestedItems(store, await storedRoot(store, nested.root), { maxDepth: 1, maxItems: 100 });
    expect(found).to.deep.equal({
      items: nested.expected.filter((i) => i.depth === 1),
      unindexed: [{ id: nested.middle.id, reason: 'its bundle is nested deeper than 1' }],
    });
  });

  it('indexes the first entries of a bundle that would go past the item limit, and says how many it left out', async () => {
    const found = await findNestedItems(store, await storedRoot(store, nested.root), { maxDepth: 8, maxItems: 4, scope: 'this test' });
    expect(found).to.deep.equal({
      items: nested.expected.filter((i) => i.id !== nested.inner2.id),
      unindexed: [{ id: nested.middle.id, reason: '1 of its 2 items are not indexed: at most 4 are indexed under this test' }],
    });
  });

  it("leaves out an entry that copies another item's header but whose signature does not cover its bytes, and nothing under it is looked for", async () => {
    const victim = await signedItem(signers.solana(), 'genuine payload');
    const tampered = Buffer.from(victim.getRaw());
    tampered[tampered.length - 1]! ^= 1;
    const claim = await bundleItem(signers.ethereum(), await bundleBytes([nested.first]));
    const claimBytes = Buffer.from(claim.getRaw());
    claimBytes[claimBytes.length - 1]! ^= 1; // a bundle item that claims its id, with its inner bundle changed
    const payload = rawBundle([
      { id: victim.id, raw: tampered },
      { id: claim.id, raw: claimBytes },
      { id: nested.last.id, raw: nested.last.getRaw() },
    ]);
    const root = await bundleItem(signers.arweave(), payload);
    const found = await findNestedItems(store, await storedRoot(store, root));
    const places = expectedPlaces(root, 0, [victim, claim, nested.last], 1);
    const at = (n: number) => `the item at byte ${places[n]!.startOffsetInParentDataItemPayload} of the bundle in ${root.id}`;
    expect(found).to.deep.equal({
      items: [places[2]],
      unindexed: [
        { id: victim.id, reason: `${at(0)} does not verify: signature of type 2 does not verify` },
        { id: claim.id, reason: `${at(1)} does not verify: signature of type 3 does not verify` },
      ],
    });
  });

  it('leaves out entries with the right id and a random signature, however many', async () => {
    const fakes = Array.from({ length: 300 }, () => fakeEntry());
    const root = await bundleItem(signers.ethereum(), rawBundle([...fakes, { id: nested.first.id, raw: nested.first.getRaw() }]));
    const found = await findNestedItems(store, await storedRoot(store, root));
    expect(found.items.map((i) => i.id)).to.deep.equal([nested.first.id]);
    expect(found.unindexed.map((u) => u.id)).to.deep.equal(fakes.map((f) => f.id));
    expect(new Set(found.unindexed.map((u) => u.reason.replace(/^the item at byte \d+ /, '')))).to.deep.equal(
      new Set([`of the bundle in ${root.id} does not verify: signature of type 2 does not verify`]),
    );
  });

  it('gives the event loop back while it checks the entries of one read', async () => {
    // 1500 entries in one span of the blob: no I/O between their checks
    const root = await bundleItem(signers.ethereum(), rawBundle(Array.from({ length: 1500 }, () => fakeEntry())));
    const stored = await storedRoot(store, root);
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    const turnsAtFinding: number[] = [];
    const walk = walkNested(store, stored);
    const first = await walk.next();
    expect(first.done).to.equal(false);
    setImmediate(tick);
    for await (const _ of walk) turnsAtFinding.push(turns);
    ticking = false;
    expect(turnsAtFinding).to.have.length(1499);
    expect(turnsAtFinding[turnsAtFinding.length - 1]).to.be.greaterThan(turnsAtFinding[0]!);
  });

  it("checks a large item's signature over bytes streamed from the blob, after reading its first 8 KiB for the header", async () => {
    const items = await Promise.all([0, 1, 2].map(() => itemOfSize(signers.ethereum(), 200 * 1024)));
    const root = await bundleItem(signers.ethereum(), await bundleBytes(items));
    const stored = await storedRoot(store, root);
    const ranges: number[] = [];
    const counting: BlobStore = {
      ...store,
      read: (key, range) => (ranges.push(range!.end - range!.start + 1), store.read(key, range)),
    };
    const found = await findNestedItems(counting, stored);
    expect(found).to.deep.equal({ items: expectedPlaces(root, 0, items, 1), unindexed: [] });
    // the count, the entries, then per item its first 8 KiB on its own (the bytes between are too
    // many to read through) and the whole item as a stream
    const size = items[0]!.getRaw().length;
    expect(ranges).to.deep.equal([32, 3 * 64, 8192, size, 8192, size, 8192, size]);
  });

  it('reads and checks each item of a bundle of many small items without one read per item', async () => {
    const items = await Promise.all(Array.from({ length: 200 }, (_, i) => signedItem(signers.ethereum(), `item ${i}`)));
    const root = await bundleItem(signers.ethereum(), await bundleBytes(items));
    const stored = await storedRoot(store, root);
    let reads = 0;
    const counting: BlobStore = { ...store, read: (key, range) => (reads++, store.read(key, range)) };
    const found = await findNestedItems(counting, stored);
    expect(found).to.deep.equal({ items: expectedPlaces(root, 0, items, 1), unindexed: [] });
    // the count, the 200 entries, then the items' bytes (under 256 KiB together)
    expect(reads).to.equal(3);
  });
});
