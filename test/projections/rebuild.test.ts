import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { nativeAddress } from '../../src/verify/index.js';
import { rebuild } from '../../projections/rebuild.js';
import { allProjections, collectionOf } from '../../projections/index.js';
import { freshReadModels, readModelsOf } from './readModels.js';

const meta = { correlationId: 'test' };

/** how long a test waits for the live runner; not a timing assertion */
const CATCH_UP_MS = 10_000;

describe('rebuild beside the running service', function () {
  this.timeout(120_000);
  let service: TestService;
  beforeEach(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: '3000', PRICE_WINC_PER_BYTE: '1' });
  });
  afterEach(() => service.close());

  /** the receipt's price */
  async function upload(item: DataItem): Promise<bigint> {
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status).to.equal(200);
    return BigInt((await res.json()).winc);
  }

  const statusOf = async (id: string) => (await fetch(`${service.url}/tx/${id}/status`)).status;

  it('switches to read models equal to a projection from scratch, while uploads arrive and queries are answered', async () => {
    // history: a credited payer's paid upload, free uploads, a multi-part upload
    const payerKey = signers.ethereum();
    const paid = await itemOfSize(payerKey, 5000);
    const payer = nativeAddress(3, paid.rawOwner);
    const { position } = await service.accounts.execute({ type: 'Credit', data: { address: payer, winc: 100_000n, creditId: 'c1', now: Date.now() } }, meta);
    expect(await service.projections.waitFor(position!, CATCH_UP_MS)).to.equal(true);
    const price = await upload(paid);
    expect(price > 0n).to.equal(true);
    for (let i = 0; i < 3; i++) await upload(await signedItem(signers.arweave()));
    const multipart = await itemOfSize(payerKey, 12_000);
    const uploadId = await createUpload(service.url);
    await postChunks(service.url, uploadId, multipart.getRaw(), 5000);
    const finalized = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
    expect(finalized.status).to.equal(200);
    const multipartPrice = BigInt((await finalized.json()).data.winc);

    // during the rebuild: after each of its first batches an upload arrives and a query is answered
    const arrived: string[] = [];
    const answered: number[] = [];
    const result = await rebuild({
      eventStore: service.eventStore,
      readStore: service.readStore,
      projections: allProjections,
      batchSize: 4,
      onProgress: async () => {
        if (arrived.length === 4) return;
        const item = await signedItem(signers.arweave());
        await upload(item);
        arrived.push(item.id);
        answered.push(await statusOf(paid.id));
      },
    });
    expect(answered).to.deep.equal([200, 200, 200, 200]);
    expect(result.promoted.map((p) => p.collection)).to.deep.equal(allProjections.map(collectionOf));

    // one more after the switch, then the live runner carries on from the promoted checkpoints
    const last = await signedItem(signers.arweave());
    await upload(last);
    const head = await service.eventStore.headPosition();
    expect(await service.projections.waitFor(head, CATCH_UP_MS)).to.equal(true);
    expect(await readModelsOf(service.readStore, allProjections)).to.deep.equal(await freshReadModels(service.eventStore, allProjections));

    for (const id of [paid.id, multipart.id, ...arrived, last.id]) expect(await statusOf(id), id).to.equal(200);
    const balance = await (await fetch(`${service.url}/account/balance/${payer}`)).json();
    expect(balance).to.include({ winc: String(100_000n - price - multipartPrice), spentWinc: String(price + multipartPrice), reservedWinc: '0' });
    const multipartStatus = await (await fetch(`${service.url}/chunks/arweave/${uploadId}/status`)).json();
    expect(multipartStatus.status).to.equal('FINALIZED');
  });
});
