import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { otherSpellings } from '../support/idSpellings.js';
import { eventually } from '../support/eventually.js';
import { verifyReceipt } from '../../src/receipts/verifyReceipt.js';
import { bundleBytes, bundleItem } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';

/** CONTRACT.md section 6: `GET /tx/:id/receipt`, the receipt as it was issued. */
describe('GET /tx/:id/receipt', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.close());

  /** the receipt route's answer once the read model has the item (it follows the upload's answer) */
  const receiptOf = (id: string, prefix = '') =>
    eventually(
      async () => {
        const res = await fetch(`${service.url}${prefix}/tx/${id}/receipt`);
        return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
      },
      (r) => r.status === 200,
      `the receipt of ${id}`,
    );

  it('answers the bytes the single upload answered, a receipt that verifies, at the root and /v1, in any spelling of the id', async () => {
    const item = await signedItem(signers.ethereum(), randomBytes(700), [{ name: 'Content-Type', value: 'text/plain' }]);
    const uploaded = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(uploaded.status).to.equal(200);
    const issued = await uploaded.text();
    const answer = await receiptOf(item.id);
    expect(answer).to.deep.equal({ status: 200, type: 'application/json; charset=utf-8', text: issued });
    expect(Object.keys(JSON.parse(answer.text))).to.deep.equal([
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
    expect(await verifyReceipt(JSON.parse(answer.text))).to.equal(true);
    expect((await receiptOf(item.id, '/v1')).text).to.equal(issued);
    expect((await receiptOf(otherSpellings(item.id)[2]!)).text).to.equal(issued);
  });

  it("answers the multi-part upload's receipt as its finalize answered it", async () => {
    const item = await signedItem(signers.arweave(), randomBytes(7000));
    const uploadId = await createUpload(service.url);
    await postChunks(service.url, uploadId, item.getRaw(), 3000);
    const finalized = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
    expect(finalized.status).to.equal(200);
    const { data } = (await finalized.json()) as { data: unknown };
    const answer = await receiptOf(item.id);
    expect(answer.text).to.equal(JSON.stringify(data));
    expect(await verifyReceipt(JSON.parse(answer.text))).to.equal(true);
  });

  it("answers TX doesn't exist for an item nested in an uploaded bundle, and for an unknown id", async () => {
    const inner = await signedItem(signers.arweave(), 'nested, never uploaded itself');
    const root = await bundleItem(signers.arweave(), await bundleBytes([inner]));
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(root.getRaw()) })).status).to.equal(200);
    await nestedIndexed(service, root.id);
    // the nested item is known (its status answers), but it has no receipt
    await eventually(
      async () => (await fetch(`${service.url}/tx/${inner.id}`)).status,
      (s) => s === 200,
      'the nested item served',
    );
    expect((await receiptOf(root.id)).status).to.equal(200);
    for (const id of [inner.id, Buffer.alloc(32, 5).toString('base64url'), 'not-an-id']) {
      const res = await fetch(`${service.url}/tx/${id}/receipt`);
      expect([res.status, res.statusText, await res.text()], id).to.deep.equal([404, "TX doesn't exist", "TX doesn't exist"]);
    }
  });
});
