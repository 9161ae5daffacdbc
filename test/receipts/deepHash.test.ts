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
