import { expect } from 'chai';
import { DataItem, type DataItem as DataItemType } from 'arbundles';
import { bundleHeader, bundleLayout, headerRange } from '../../src/bundling/index.js';
import { arbundlesBundle, mixedItems } from './support/bundles.js';

const entryOf = (item: DataItemType) => ({ id: item.id, size: item.getRaw().byteLength });
const id = (n: number) => Buffer.alloc(32, n).toString('base64url');

describe('bundle layout', () => {
  let items: DataItemType[];
  let bundle: Buffer;
  before(async () => {
    items = await mixedItems([0, 1, 100, 5000, 70000]);
    bundle = await arbundlesBundle(items);
  });

  it('places every item where arbundles puts it, after a header of 32 + 64 per item', () => {
    const layout = bundleLayout(items.map(entryOf));
    expect(layout.headerSize).to.equal(32 + 64 * 5);
    expect(layout.totalSize).to.equal(bundle.byteLength);
    let expected = layout.headerSize;
    for (const [i, placed] of layout.items.entries()) {
      const item = items[i]!;
      expect(placed).to.deep.equal({ id: item.id, size: item.getRaw().byteLength, offset: expected });
      const slice = bundle.subarray(placed.offset, placed.offset + placed.size);
      expect(new DataItem(slice).id).to.equal(item.id);
      expect(slice.equals(item.getRaw())).to.equal(true);
      expected += placed.size;
    }
  });

  it('computes exact offsets from sizes alone', () => {
    const layout = bundleLayout([
      { id: id(1), size: 10 },
      { id: id(2), size: 300 },
      { id: id(3), size: 1 },
    ]);
    expect(layout).to.deep.equal({
      headerSize: 224,
      totalSize: 535,
      items: [
        { id: id(1), size: 10, offset: 224 },
        { id: id(2), size: 300, offset: 234 },
        { id: id(3), size: 1, offset: 534 },
      ],
    });
  });

  it('keeps the other fields of each entry (a blob key) next to its offset', () => {
    const layout = bundleLayout([{ id: id(1), size: 5, blobKey: 'items/a' }]);
    expect(layout.items).to.deep.equal([{ id: id(1), size: 5, blobKey: 'items/a', offset: 96 }]);
  });

  it('lays out an empty bundle as a 32-byte header', () => {
    expect(bundleLayout([])).to.deep.equal({ headerSize: 32, totalSize: 32, items: [] });
  });

  it('refuses an id that is not base64url of 32 bytes', () => {
    expect(() => bundleLayout([{ id: 'short', size: 1 }])).to.throw(RangeError, 'item id "short" is not base64url of 32 bytes');
    // 43 characters whose last one carries bits beyond the 32 bytes: it would not survive the header
    const nonCanonical = `${id(1).slice(0, 42)}B`;
    expect(() => bundleLayout([{ id: nonCanonical, size: 1 }])).to.throw(RangeError, 'is not base64url of 32 bytes');
  });

  it('refuses an empty or fractional size', () => {
    expect(() => bundleLayout([{ id: id(1), size: 0 }])).to.throw(RangeError, `item ${id(1)} has size 0`);
    expect(() => bundleLayout([{ id: id(1), size: 1.5 }])).to.throw(RangeError, `item ${id(1)} has size 1.5`);
  });

  it('refuses the same item twice', () => {
    expect(() =>
      bundleLayout([
        { id: id(7), size: 1 },
        { id: id(7), size: 1 },
      ]),
    ).to.throw(RangeError, `item ${id(7)} is twice in the bundle`);
  });
});

describe('bundle header', () => {
  it("equals arbundles' header byte for byte", async () => {
    const items = await mixedItems([3, 40, 500]);
    const bundle = await arbundlesBundle(items);
    const header = bundleHeader(items.map(entryOf));
    expect(header.byteLength).to.equal(32 + 64 * 3);
    expect(header.equals(bundle.subarray(0, header.byteLength))).to.equal(true);
  });

  it('writes the count and sizes little-endian over 32 bytes, ids raw', () => {
    const header = bundleHeader([{ id: id(0xab), size: 0x0102_0304_0506 }]);
    const expected = Buffer.alloc(96);
    expected[0] = 1;
    expected.set([0x06, 0x05, 0x04, 0x03, 0x02, 0x01], 32);
    expected.fill(0xab, 64);
    expect(header.toString('hex')).to.equal(expected.toString('hex'));
  });

  it('builds any range of the header equal to the same slice of the whole', () => {
    const entries = Array.from({ length: 9 }, (_, i) => ({ id: id(i + 1), size: 1000 * (i + 1) + i }));
    const whole = bundleHeader(entries);
    const ranges = [
      [0, 0],
      [0, 1],
      [0, 32],
      [31, 33],
      [32, 96],
      [95, 97],
      [100, 300],
      [544, 608],
      [600, 608],
      [0, 608],
      [608, 608],
    ] as const;
    for (const [start, end] of ranges) {
      expect(headerRange(entries, start, end).toString('hex'), `[${start}, ${end})`).to.equal(whole.subarray(start, end).toString('hex'));
    }
  });

  it('refuses a range outside the header', () => {
    expect(() => headerRange([], 0, 33)).to.throw(RangeError, 'header range [0, 33) is outside [0, 32)');
    expect(() => headerRange([], 5, 4)).to.throw(RangeError, 'header range [5, 4) is outside [0, 32)');
  });
});
