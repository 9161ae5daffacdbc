import { expect } from 'chai';
import { Receipt } from '../../src/domain/receipt.js';
import { buildReceipt, issueReceipt } from '../../src/receipts/buildReceipt.js';
import { createReceiptSigner, type ReceiptSigner } from '../../src/receipts/receiptSigner.js';
import { verifyReceipt } from '../../src/receipts/verifyReceipt.js';
import { loadTestJwk } from '../fixtures/testWallet.js';
import { arweaveAccepts, irysAccepts } from '../support/clientChecks.js';

const jwk = loadTestJwk();
const fields = {
  id: 'g0N4Ci4V9Mb6-8Kf2wQ1vQnJ0H8m3A8Z3Lx7bK2k6Rk',
  owner: 'Jm5X3bAVpL1c7mBJ8Q0c3Xh2J6nIh3rGm8o0dYq3m8E',
  dataCaches: ['arweave.net'],
  fastFinalityIndexes: [],
  deadlineHeight: 1500200,
  timestamp: 1700000000123,
  winc: '0',
};

describe('signed receipt', () => {
  let signer: ReceiptSigner;
  let receipt: Receipt;
  before(async () => {
    signer = createReceiptSigner({ jwk, workers: 2 });
    receipt = await issueReceipt({ signer, publicModulus: jwk.n }, fields);
  });
  after(() => signer.close());

  it('has the contract fields in wire order, with version 0.2.0 and the wallet modulus', () => {
    expect(Object.keys(receipt)).to.deep.equal([
      'id',
      'owner',
      'dataCaches',
      'fastFinalityIndexes',
      'deadlineHeight',
      'timestamp',
      'version',
      'winc',
      'public',
      'signature',
    ]);
    expect({ ...receipt, signature: undefined }).to.deep.equal({
      ...fields,
      version: '0.2.0',
      public: jwk.n,
      signature: undefined,
    });
    expect(Receipt.parse(receipt)).to.deep.equal(receipt);
  });

  it('carries a 512-byte base64url signature', () => {
    expect(receipt.signature).to.match(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(receipt.signature, 'base64url').length).to.equal(512);
  });

  it('verifies with arweave-js over arbundles deepHash', async () => {
    expect(await arweaveAccepts(receipt)).to.equal(true);
  });

  it("verifies with the Irys client's verifyReceipt", async () => {
    expect(await irysAccepts(receipt)).to.equal(true);
  });

  it('verifies with our own verifyReceipt', async () => {
    expect(await verifyReceipt(receipt)).to.equal(true);
  });

  it('is deterministic: the same fields give the same signature (PSS with an empty salt)', async () => {
    const again = await issueReceipt({ signer, publicModulus: jwk.n }, fields);
    expect(again.signature).to.equal(receipt.signature);
  });

  const tampered: Record<string, Partial<Receipt>> = {
    id: { id: 'h0N4Ci4V9Mb6-8Kf2wQ1vQnJ0H8m3A8Z3Lx7bK2k6Rk' },
    timestamp: { timestamp: fields.timestamp + 1 },
    deadlineHeight: { deadlineHeight: fields.deadlineHeight - 1 },
  };
  for (const [field, change] of Object.entries(tampered)) {
    it(`fails every check when ${field} is changed`, async () => {
      const forged = buildReceipt({ ...receipt, ...change });
      expect([await arweaveAccepts(forged), await irysAccepts(forged), await verifyReceipt(forged)]).to.deep.equal([false, false, false]);
    });
  }

  it('fails our check, without throwing, when the signature or key is not base64url of a key', async () => {
    expect(await verifyReceipt({ ...receipt, public: 'not a key' })).to.equal(false);
    expect(await verifyReceipt({ ...receipt, signature: '' })).to.equal(false);
  });
});
