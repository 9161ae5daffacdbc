import { expect } from 'chai';
import { bundleEntries, itemCount, readLength, UnindexableBundle } from '../../src/app/nested/bundleHeader.js';

const le32 = (n: bigint) => {
  const bytes = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return bytes;
};
const entry = (size: number, idByte: number) => Buffer.concat([le32(BigInt(size)), Buffer.alloc(32, idByte)]);

describe('bundle header arithmetic', () => {
  it('reads 256-bit little-endian numbers up to the largest safe integer', () => {
    expect(readLength(le32(0n))).to.equal(0);
    expect(readLength(le32(0x0102n))).to.equal(258);
    expect(readLength(le32(2n ** 53n - 1n))).to.equal(Number.MAX_SAFE_INTEGER);
    expect(readLength(le32(2n ** 53n))).to.equal(undefined);
    expect(readLength(le32(2n ** 255n))).to.equal(undefined);
  });

  it('places items after the 32 + 64·n header bytes, back to back', () => {
    const entries = [...bundleEntries(Buffer.concat([entry(10, 1), entry(0, 2), entry(5, 3)]), 3, 3, 32 + 3 * 64 + 15)];
    expect(entries).to.deep.equal([
      { id: Buffer.alloc(32, 1).toString('base64url'), size: 10, offset: 224 },
      { id: Buffer.alloc(32, 2).toString('base64url'), size: 0, offset: 234 },
      { id: Buffer.alloc(32, 3).toString('base64url'), size: 5, offset: 234 },
    ]);
  });

  it('refuses sizes that fall short of the bundle length', () => {
    expect(() => [...bundleEntries(entry(10, 1), 1, 1, 32 + 64 + 11)])
      .to.throw(UnindexableBundle)
      .with.property('reason', 'items end at byte 106 of a bundle of 107 bytes');
  });

  it('places the first entries of a longer header after the whole header, without the tiling of the rest', () => {
    const entries = [...bundleEntries(Buffer.concat([entry(10, 1), entry(5, 2)]), 2, 4, 32 + 4 * 64 + 15 + 1000)];
    expect(entries).to.deep.equal([
      { id: Buffer.alloc(32, 1).toString('base64url'), size: 10, offset: 288 },
      { id: Buffer.alloc(32, 2).toString('base64url'), size: 5, offset: 298 },
    ]);
    expect(() => [...bundleEntries(entry(2000, 1), 1, 4, 32 + 4 * 64 + 1000)])
      .to.throw(UnindexableBundle)
      .with.property('reason', "item 0 of 2000 bytes ends past the bundle's 1288 bytes");
  });

  it('refuses a count whose header does not fit', () => {
    expect(() => itemCount(le32(2n), 32 + 64))
      .to.throw(UnindexableBundle)
      .with.property('reason', 'a header of 2 items does not fit in 96 bytes');
    expect(itemCount(le32(2n), 32 + 128)).to.equal(2);
  });
});
