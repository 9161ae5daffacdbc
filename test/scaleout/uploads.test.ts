/**
 * Uploads on the scale-out profile: the whole service over HTTP, its events on the EventStoreDB test
 * double (BatchAppend, MaxAppendSize, `$all` positions as log offsets), with exactly the guarantees
 * of the embedded profile: receipts, statuses, one acceptance per item, no double spend.
 */
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { nativeAddress } from '../../src/verify/index.js';
import { arweaveAccepts } from '../support/clientChecks.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { itemOfSize } from '../support/sizedItem.js';
import { startScaleoutService, type ScaleoutService } from './support.js';
import { eventually } from '../support/eventually.js';

const FREE = 1500;
const RATE = 10n; // winc per byte

async function upload(service: ScaleoutService, item: DataItem) {
  const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
  return { status: res.status, statusText: res.statusText, body: await res.text() };
}

async function balance(service: ScaleoutService, address: string) {
  const res = await fetch(`${service.url}/v1/account/balance/${address}`);
  expect(res.status).to.equal(200);
  return res.json();
}

async function credit(service: ScaleoutService, address: string, winc: bigint) {
  const { position } = await service.accounts.execute(
    { type: 'Credit', data: { address, winc, creditId: `${address}:${winc}`, now: Date.now() } },
    { correlationId: 'test' },
  );
  await service.projections.waitFor(position!, 30_000);
}

async function eventTypes(service: ScaleoutService, id: string): Promise<string[]> {
  const types: string[] = [];
  for await (const e of service.eventStore.readStream(dataItemStream(id as DataItemId))) types.push(e.type);
  return types;
}

describe('uploads on the scale-out profile (EventStoreDB test double)', function () {
  this.timeout(180_000);
  let service: ScaleoutService;
  before(async () => {
    service = await startScaleoutService({
      LOG_LEVEL: process.env.SCALEOUT_LOG ?? 'silent',
      FREE_UPLOAD_LIMIT_BYTES: String(FREE),
      PRICE_WINC_PER_BYTE: String(RATE),
    });
  });
  after(() => service?.close());

  it('answers a single upload with a signed receipt, its status CONFIRMED, through BatchAppend', async () => {
    const item = await signedItem(signers.arweave(), 'hello scale-out');
    const res = await upload(service, item);
    expect(res.status).to.equal(200);
    const receipt = JSON.parse(res.body);
    expect(receipt.id).to.equal(item.id);
    expect(await arweaveAccepts(receipt)).to.equal(true);
    const status = await (await fetch(`${service.url}/tx/${item.id}/status`)).json();
    expect(status.status).to.equal('CONFIRMED');
    expect(await eventTypes(service, item.id)).to.deep.equal(['DataItemAccepted']);
    // the client appends through BatchAppend, as against a real node
    expect(service.esdb.node.calls.batchAppend).to.be.at.least(1);
    expect(service.esdb.node.calls.append).to.equal(undefined);
  });

  it('assembles a multi-part upload sent out of order, finalizes it with a receipt, the same on a repeat', async () => {
    const item = await itemOfSize(signers.arweave(), 1200);
    const raw = item.getRaw();
    const id = await createUpload(service.url, '?chunkSize=2500');
    const big = await itemOfSize(signers.arweave(), 7_000 + FREE);
    // the small item is under the free limit; the big one gets a credit
    await credit(service, nativeAddress(1, big.rawOwner), 100_000n);
    const bigId = await createUpload(service.url, '?chunkSize=2500');
    await postChunks(service.url, id, raw, 2500);
    await postChunks(service.url, bigId, big.getRaw(), 2500, [3, 1, 0, 2]);
    const view = await (await fetch(`${service.url}/chunks/arweave/${bigId}/-1`)).json();
    expect(view.chunks).to.deep.equal([
      [0, 2500],
      [2500, 2500],
      [5000, 2500],
      [7500, big.getRaw().length - 7500],
    ]);

    const res = await fetch(`${service.url}/chunks/arweave/${bigId}/-1`, { method: 'POST' });
    expect(res.status).to.equal(200);
    const body = await res.json();
    expect(body.id).to.equal(big.id);
    expect(await arweaveAccepts(body.data)).to.equal(true);
    const again = await fetch(`${service.url}/v1/chunks/arweave/${bigId}/-1`, { method: 'POST' });
    expect(await again.json()).to.deep.equal(body);
    const status = await (await fetch(`${service.url}/chunks/arweave/${bigId}/status`)).json();
    expect(status).to.deep.include({ status: 'FINALIZED', receipt: body.data });
    expect((await (await fetch(`${service.url}/tx/${big.id}/status`)).json()).status).to.equal('CONFIRMED');

    // finalized asynchronously: 202 at once, then FINALIZED
    expect((await fetch(`${service.url}/chunks/arweave/${id}/finalize`, { method: 'POST' })).status).to.equal(202);
    await service.finalizer.idle();
    const small = await (await fetch(`${service.url}/chunks/arweave/${id}/status`)).json();
    expect(small.status).to.equal('FINALIZED');
    expect(small.receipt.id).to.equal(item.id);
  });

  it('records one acceptance and charges once when 50 uploads of one paid item race: one 200, 49 202 with its receipt', async () => {
    const item = await itemOfSize(signers.ethereum(), 2000);
    const owner = nativeAddress(3, item.rawOwner);
    await credit(service, owner, 50_000n);
    const answers = await Promise.all(Array.from({ length: 50 }, () => upload(service, item)));
    const byStatus = (status: number) => answers.filter((a) => a.status === status);
    expect(answers.map((a) => a.status).sort(), answers.map((a) => `${a.status} ${a.body.slice(0, 40)}`).join(' | ')).to.deep.equal([
      200,
      ...Array<number>(49).fill(202),
    ]);
    const receipt = JSON.parse(byStatus(200)[0]!.body);
    for (const a of byStatus(202)) {
      expect(a.statusText).to.equal('Data Item Exists');
      expect(JSON.parse(a.body)).to.deep.equal(receipt);
    }
    expect(receipt.winc).to.equal('20000');
    expect(await eventTypes(service, item.id)).to.deep.equal(['DataItemAccepted']);
    // the balance is a read model: the 49 duplicates' reservations are released after their answers
    const after = await eventually(
      () => balance(service, owner),
      (b) => b.reservedWinc === '0',
      `balance of ${owner}`,
    );
    expect(after).to.include({ winc: '30000', creditedWinc: '50000', spentWinc: '20000', reservedWinc: '0' });
  });

  it('lets one of two items racing for a credit that covers one pass, the other 402, and spends it once', async () => {
    for (let round = 0; round < 4; round++) {
      const signer = signers.ethereum();
      const [a, b] = [await itemOfSize(signer, 2000), await itemOfSize(signer, 2000)];
      const owner = nativeAddress(3, a.rawOwner);
      await credit(service, owner, 20_000n);
      const answers = await Promise.all([upload(service, a), upload(service, b)]);
      expect(answers.map((x) => x.status).sort(), `round ${round}`).to.deep.equal([200, 402]);
      expect(answers.find((x) => x.status === 402)!.body).to.equal('Insufficient balance');
      expect(await balance(service, owner)).to.include({ winc: '0', spentWinc: '20000', reservedWinc: '0' });
    }
  });
});
