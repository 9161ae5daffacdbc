import { randomBytes } from 'node:crypto';
import { deepHash } from 'arbundles';
import { expect } from 'chai';
import { deepHashBlobs } from '../../src/receipts/deepHash.js';
import { receiptMessage } from '../../src/receipts/receiptMessage.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');

describe('receipt deep hash', () => {
  const lists: Record<string, Uint8Array[]> = {
    'an empty list': [],
    'one empty blob': [new Uint8Array(0)],
    'the receipt fields': ['Bundlr', '0.2.0', 'g0N4Ci4V9Mb6-8Kf2wQ1vQnJ0H8m3A8Z3Lx7bK2k6Rk', '1500200', '1700000000000'].map(utf8),
    'multi-byte UTF-8 text': ['Bündlr ✓', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢'].map(utf8),
    'a 1 MiB blob and a short one': [randomBytes(1 << 20), utf8('x')],
  };

  for (const [name, blobs] of Object.entries(lists)) {
    it(`equals arbundles' deepHash for ${name}`, async () => {
      expect(deepHashBlobs(blobs).toString('hex')).to.equal(Buffer.from(await deepHash(blobs)).toString('hex'));
    });
  }

  it('signs the deep hash of ["Bundlr", version, id, deadlineHeight, timestamp] as strings', async () => {
    const fields = { id: 'g0N4Ci4V9Mb6-8Kf2wQ1vQnJ0H8m3A8Z3Lx7bK2k6Rk', deadlineHeight: 1500200, timestamp: 1700000000000 };
    const expected = await deepHash(['Bundlr', '0.2.0', fields.id, '1500200', '1700000000000'].map(utf8));

    expect(receiptMessage(fields, '0.2.0').toString('hex')).to.equal(Buffer.from(expected).toString('hex'));
  });
});
