import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { acceptDataItem } from '../../src/app/acceptance/acceptDataItem.js';
import { receiveDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import { AccountRepository } from '../../src/app/accounts/accounts.js';
import { createFixedPricing } from '../../src/adapters/pricing/fixedPricing.js';
import { accountStream } from '../../src/domain/account/ids.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { fromRecorded, toNewEvent } from '../../src/domain/events.js';
import { isAccountEvent } from '../../src/domain/account/events.js';
import { evolveAccount, initialAccountState, availableOf } from '../../src/domain/account/state.js';
import { deserializeAccount, serializeAccount, type SerializedAccount } from '../../src/domain/account/serialized.js';
import { accountBalanceProjection, collectionOf } from '../../projections/index.js';
import { nativeAddress } from '../../src/verify/index.js';
import { dataItemAccepted } from '../support/events.js';
import type { ReceiptSigner } from '../../src/receipts/receiptSigner.js';

const meta = { correlationId: 'test' };
const HOUR = 3_600_000;

async function replayed(service: TestService, address: string) {
  let state = initialAccountState;
  for await (const r of service.eventStore.readStream(accountStream(address))) {
    const e = fromRecorded(r);
    if (e && isAccountEvent(e)) state = evolveAccount(state, e);
  }
  return state;
}

async function readModel(service: TestService, address: string) {
  await service.projections.waitFor(await service.eventStore.headPosition(), 5000);
  const doc = await service.readStore.get<SerializedAccount>(collectionOf(accountBalanceProjection), address);
  return doc && deserializeAccount(doc.doc);
}

describe('reservations that outlive a crash', function () {
  this.timeout(60_000);
  let service: TestService;
  const address = 'A'.repeat(43);
  beforeEach(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: '0', PRICE_WINC_PER_BYTE: '1' });
    await service.accounts.execute({ type: 'Credit', data: { address, winc: 1000n, creditId: 'c1', now: Date.now() } }, meta);
  });
  afterEach(() => service.close());

  it('releases a stale reservation whose item was never accepted (crash between reserving and accepting)', async () => {
    const dataItemId = 'B'.repeat(43);
    await service.accounts.execute({ type: 'Reserve', data: { address, reservationId: 'r-crashed', winc: 300n, dataItemId, now: Date.now() - HOUR } }, meta);
    await service.projections.waitFor(await service.eventStore.headPosition(), 5000);
    expect(availableOf(await service.accounts.read(address))).to.equal(700n);
    expect(await service.reconciler.runOnce()).to.deep.equal({ settled: 0, released: 1 });
    expect(availableOf(await service.accounts.read(address))).to.equal(1000n);
    expect(await service.reconciler.runOnce()).to.deep.equal({ settled: 0, released: 0 });
  });

  it('settles a stale reservation whose item was accepted with it (crash between accepting and settling)', async () => {
    const dataItemId = 'C'.repeat(43);
    await service.accounts.execute({ type: 'Reserve', data: { address, reservationId: 'r-accepted', winc: 300n, dataItemId, now: Date.now() - HOUR } }, meta);
    const accepted = dataItemAccepted(dataItemId, { payer: address, reservationId: 'r-accepted', winc: '300' });
    await service.eventStore.append(dataItemStream(dataItemId as DataItemId), [toNewEvent(accepted, newEventId(), meta)], 'no_stream');
    await service.projections.waitFor(await service.eventStore.headPosition(), 5000);
    expect(await service.reconciler.runOnce()).to.deep.equal({ settled: 1, released: 0 });
    const state = await service.accounts.read(address);
    expect(availableOf(state)).to.equal(700n);
    expect(state.spent).to.equal(300n);
  });

  it('leaves young reservations alone: their upload may still be running', async () => {
    await service.accounts.execute(
      { type: 'Reserve', data: { address, reservationId: 'r-young', winc: 5n, dataItemId: 'D'.repeat(43), now: Date.now() } },
      meta,
    );
    await service.projections.waitFor(await service.eventStore.headPosition(), 5000);
    expect(await service.reconciler.runOnce()).to.deep.equal({ settled: 0, released: 0 });
  });

  it('gives the reservation back when the upload fails after reserving', async () => {
    const signer = signers.arweave();
    const item = await signedItem(signer, 'x'.repeat(200));
    const owner = nativeAddress(1, item.rawOwner);
    await service.accounts.execute({ type: 'Credit', data: { address: owner, winc: 10_000n, creditId: 'c2', now: Date.now() } }, meta);
    const failingSigner: ReceiptSigner = { sign: async () => Promise.reject(new Error('signing worker died')), close: async () => {} };
    const received = await receiveDataItem([item.getRaw()], { blobStore: service.blobStore, maxSize: 1 << 20 });
    let failure: unknown;
    try {
      await acceptDataItem(
        received,
        { token: 'arweave', ctx: { requestId: 'r' } },
        {
          eventStore: service.eventStore,
          items: service.items,
          blobStore: service.blobStore,
          accounts: service.accounts,
          pricing: createFixedPricing({ wincPerByte: 1n }),
          blockHeight: { current: () => 1 },
          signer: failingSigner,
          receiptSettings: { dataCaches: [], fastFinalityIndexes: [], publicModulus: 'n', deadlineHeightOffset: 200 },
          now: Date.now,
        },
      );
    } catch (error) {
      failure = error;
    }
    expect((failure as Error).message).to.equal('signing worker died');
    const state = await service.accounts.read(owner);
    expect({ available: availableOf(state), spent: state.spent, open: state.reservations.size }).to.deep.equal({
      available: 10_000n,
      spent: 0n,
      open: 0,
    });
    const types: string[] = [];
    for await (const r of service.eventStore.readStream(accountStream(owner))) types.push(r.type);
    expect(types).to.deep.equal(['AccountCredited', 'BalanceReserved', 'ReservationReleased']);
  });

  it('gives up an acceptance that comes later than half the reservation timeout, rather than race the reconciler', async () => {
    const signer = signers.arweave();
    const item = await signedItem(signer, 'y'.repeat(200));
    const owner = nativeAddress(1, item.rawOwner);
    await service.accounts.execute({ type: 'Credit', data: { address: owner, winc: 10_000n, creditId: 'c4', now: Date.now() } }, meta);
    // the process stalls while signing: its clock moves past half the timeout before the append
    let clock = Date.now();
    const stallingSigner: ReceiptSigner = {
      sign: async (unsigned) => {
        clock += 5 * 60_000 + 1;
        return service.multipart.accept.signer.sign(unsigned);
      },
      close: async () => {},
    };
    const received = await receiveDataItem([item.getRaw()], { blobStore: service.blobStore, maxSize: 1 << 20 });
    let failure: unknown;
    try {
      await acceptDataItem(
        received,
        { token: 'arweave', ctx: { requestId: 'r' } },
        {
          ...service.multipart.accept,
          signer: stallingSigner,
          now: () => clock,
          reservationTimeoutMs: 10 * 60_000,
        },
      );
    } catch (error) {
      failure = error;
    }
    expect({ code: (failure as { code?: string }).code, message: (failure as Error).message }).to.deep.equal({
      code: 'SERVICE_UNAVAILABLE',
      message: `accepting ${item.id} took too long after its reservation; the reconciler may release it`,
    });
    const types: string[] = [];
    for await (const r of service.eventStore.readStream(accountStream(owner))) types.push(r.type);
    expect(types).to.deep.equal(['AccountCredited', 'BalanceReserved', 'ReservationReleased']);
    const itemEvents: string[] = [];
    for await (const r of service.eventStore.readStream(dataItemStream(item.id as DataItemId))) itemEvents.push(r.type);
    expect(itemEvents).to.deep.equal([]);
    expect(availableOf(await service.accounts.read(owner))).to.equal(10_000n);

    // within the time, the same item is accepted and charged
    const again = await receiveDataItem([item.getRaw()], { blobStore: service.blobStore, maxSize: 1 << 20 });
    const outcome = await acceptDataItem(
      again,
      { token: 'arweave', ctx: { requestId: 'r2' } },
      { ...service.multipart.accept, reservationTimeoutMs: 10 * 60_000 },
    );
    expect(outcome.kind).to.equal('accepted');
    expect((await service.accounts.read(owner)).spent).to.equal(BigInt(item.getRaw().length));
  });

  it('keeps the read model equal to a replay of each account stream', async () => {
    const signer = signers.ethereum();
    const items = await Promise.all(Array.from({ length: 6 }, () => itemOfSize(signer, 500)));
    const owner = nativeAddress(3, items[0]!.rawOwner);
    await service.accounts.execute({ type: 'Credit', data: { address: owner, winc: 2_200n, creditId: 'c3', now: Date.now() } }, meta);
    await Promise.all(items.map((i) => fetch(`${service.url}/tx`, { method: 'POST', body: asBody(i.getRaw()) })));
    for (const a of [address, owner]) {
      const model = await readModel(service, a);
      expect(serializeAccount(model!)).to.deep.equal(serializeAccount(await replayed(service, a)));
    }
    expect(availableOf((await readModel(service, owner))!)).to.equal(200n);
  });
});

describe('account repository across processes', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('lets two repositories on one store race for credits: exactly what the credits cover is reserved', async () => {
    const address = 'E'.repeat(43);
    const first = new AccountRepository(service.eventStore);
    const second = new AccountRepository(service.eventStore);
    await first.execute({ type: 'Credit', data: { address, winc: 10n, creditId: 'c', now: 1 } }, meta);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? first : second).execute({ type: 'Reserve', data: { address, reservationId: `r${i}`, winc: 1n, dataItemId: `i${i}`, now: 2 } }, meta),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(10);
    expect(availableOf(await first.read(address))).to.equal(0n);
    expect(availableOf(await second.read(address))).to.equal(0n);
  });
});
