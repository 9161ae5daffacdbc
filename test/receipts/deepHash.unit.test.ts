import { deepHash } from 'arbundles';
import { expect } from 'chai';
import { receiptMessage } from '../../src/receipts/receiptMessage.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');

describe('receipt deep hash', () => {
  it('signs the deep hash of ["Bundlr", version, id, deadlineHeight, timestamp] as strings', async () => {
    const fields = { id: 'g0N4Ci4V9Mb6-8Kf2wQ1vQnJ0H8m3A8Z3Lx7bK2k6Rk', deadlineHeight: 1500200, timestamp: 1700000000000 };
    const expected = await deepHash(['Bundlr', '0.2.0', fields.id, '1500200', '1700000000000'].map(utf8));

    expect(receiptMessage(fields, '0.2.0').toString('hex')).to.equal(Buffer.from(expected).toString('hex'));
  });
});

describe('receipt deep hash, its common prefix computed once per version', () => {
  it('matches arbundles for receipts of several versions and ids, in any order', async () => {
    const receipts = [
      { version: '0.2.0', id: 'g0N4Ci4V9Mb6-8Kf2wQ1vQnJ0H8m3A8Z3Lx7bK2k6Rk', deadlineHeight: 1500200, timestamp: 1700000000000 },
      { version: '0.1.0', id: 'g0N4Ci4V9Mb6-8Kf2wQ1vQnJ0H8m3A8Z3Lx7bK2k6Rk', deadlineHeight: 1500200, timestamp: 1700000000000 },
      { version: '0.2.0', id: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', deadlineHeight: 7, timestamp: 1 },
      { version: '0.2.0', id: 'g0N4Ci4V9Mb6-8Kf2wQ1vQnJ0H8m3A8Z3Lx7bK2k6Rk', deadlineHeight: 1500200, timestamp: 1700000000000 },
    ];
    for (const { version, ...fields } of receipts) {
      const expected = await deepHash(['Bundlr', version, fields.id, String(fields.deadlineHeight), String(fields.timestamp)].map(utf8));
      expect(receiptMessage(fields, version).toString('hex'), `${version} ${fields.id}`).to.equal(Buffer.from(expected).toString('hex'));
    }
  });
});
