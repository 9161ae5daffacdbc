import { expect } from 'chai';
import { join } from 'node:path';
import type { DataItem } from 'arbundles';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { createReconciler } from '../../src/app/accounts/reconciler.js';
import { accountStream } from '../../src/domain/account/ids.js';
import { availableOf } from '../../src/domain/account/state.js';
import { nativeAddress } from '../../src/verify/index.js';
import { auditOf } from '../audit/support.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { startTestService, type TestService } from '../support/testService.js';
import { unknownOutcomeEventStore, type UnknownOutcomeEventStore } from '../support/unknownOutcomeEventStore.js';

const meta = { correlationId: 'test' };
const CREDIT = 100_000n;

interface Answer {
  status: number;
  body: { id?: string; signature?: string; winc?: string } | string;
}

async function upload(service: TestService, item: DataItem): Promise<Answer> {
  const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as Answer['body']) : text };
}

describe('an acceptance whose append ends without saying whether it was written', function () {
  this.timeout(60_000);
  let service: TestService;
  let events: UnknownOutcomeEventStore;
  let item: DataItem;
  let owner: string;

  beforeEach(async () => {
    // priced above 1500 bytes, so the item below is paid for with a reservation
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: '1500', PRICE_WINC_PER_BYTE: '10' }, async (dataDir) => {
      events = unknownOutcomeEventStore(openSqliteEventStore({ path: join(dataDir, 'events.db') }));
      return { eventStore: events.store };
    });
    item = await signedItem(signers.arweave(), 'p'.repeat(2_000));
    owner = nativeAddress(1, item.rawOwner);
    await service.accounts.execute({ type: 'Credit', data: { address: owner, winc: CREDIT, creditId: 'c1', now: Date.now() } }, meta);
  });
  afterEach(() => service.close());

  const accountEventTypes = async () => {
    const types: string[] = [];
    for await (const r of service.eventStore.readStream(accountStream(owner))) types.push(r.type);
    return types;
  };
  const caughtUp = async () => expect(await service.projections.waitFor(await service.eventStore.headPosition(), 20_000)).to.equal(true);

  it('written after all: the item ends accepted and paid once (200 with its receipt), a retry answers 202 with that receipt, the audit is clean', async () => {
    events.once((stream) => stream.startsWith('dataItem-'), 'written');
    const first = await upload(service, item);
    expect(first.status).to.equal(200);
    const receipt = first.body as { id: string; signature: string; winc: string };
    expect(receipt.id).to.equal(item.id);
    const price = BigInt(receipt.winc);
    expect(price > 0n).to.equal(true);

    const state = await service.accounts.read(owner);
    expect({ available: availableOf(state), spent: state.spent, open: state.reservations.size }).to.deep.equal({
      available: CREDIT - price,
      spent: price,
      open: 0,
    });
    expect(await accountEventTypes()).to.deep.equal(['AccountCredited', 'BalanceReserved', 'ReservationSettled']);

    const retry = await upload(service, item);
    expect(retry.status).to.equal(202);
    expect(retry.body).to.deep.include({ id: item.id, signature: receipt.signature });
    expect((await service.accounts.read(owner)).spent).to.equal(price);

    await caughtUp();
    expect((await auditOf(service, { blobGraceMs: 0 })).findings).to.deep.equal([]);
  });

  it('not written: 503 and the reservation is not given back on a guess; the reconciler releases it once its time is up, and a retry pays once', async () => {
    events.once((stream) => stream.startsWith('dataItem-'), 'lost');
    const first = await upload(service, item);
    expect(first.status).to.equal(503);
    expect((await service.accounts.read(owner)).reservations.size).to.equal(1);
    expect(await accountEventTypes()).to.deep.equal(['AccountCredited', 'BalanceReserved']);

    await caughtUp();
    const later = createReconciler({
      items: service.items,
      readStore: service.readStore,
      accounts: service.accounts,
      reservationTimeoutMs: 600_000,
      intervalMs: 60_000,
      now: () => Date.now() + 600_001,
    });
    expect(await later.runOnce()).to.deep.equal({ settled: 0, released: 1 });
    expect(availableOf(await service.accounts.read(owner))).to.equal(CREDIT);

    const retry = await upload(service, item);
    expect(retry.status).to.equal(200);
    const price = BigInt((retry.body as { winc: string }).winc);
    expect((await service.accounts.read(owner)).spent).to.equal(price);
    await caughtUp();
    expect((await auditOf(service, { blobGraceMs: 0 })).findings).to.deep.equal([]);
  });
});
