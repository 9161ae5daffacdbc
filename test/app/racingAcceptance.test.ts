import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { acceptanceUnderWay, reserveOrAwaitRacing, type ReserveRequest } from '../../src/app/acceptance/racingAcceptance.js';
import { availableOf } from '../../src/domain/account/state.js';
import { InsufficientBalance } from '../../src/domain/errors.js';
import { toNewEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const meta = { correlationId: 'test' };

/**
 * The second of two uploads of one item, whose payer can pay once: its reservation fails while the
 * first upload holds the credits. Driven on the real account and item streams of a service.
 */
describe('a reservation racing another upload of the same item', function () {
  this.timeout(30_000);
  let service: TestService;
  const owner = 'A'.repeat(43);
  const id = itemId(7) as DataItemId;
  const request: ReserveRequest = { owner, paidBy: [], winc: 300n, dataItemId: id, ctx: { requestId: 'second' } };
  const deps = (waitMs?: number) => ({
    accounts: service.accounts,
    loadItem: () => service.items.read(id),
    now: Date.now,
    ...(waitMs !== undefined ? { waitMs } : {}),
  });
  /** the first upload's reservation: every credit of the owner */
  const reserveFirst = (dataItemId: string = id) =>
    service.accounts.execute({ type: 'Reserve', data: { address: owner, reservationId: 'first', winc: 300n, dataItemId, now: Date.now() } }, meta);

  beforeEach(async () => {
    service = await startTestService();
    await service.accounts.execute({ type: 'Credit', data: { address: owner, winc: 300n, creditId: 'c1', now: Date.now() } }, meta);
  });
  afterEach(() => service.close());

  it("answers with the other upload's acceptance once that is recorded, and reserves nothing", async () => {
    await reserveFirst();
    const second = reserveOrAwaitRacing(deps(), request);
    const accepted = dataItemAccepted(id, { winc: '300', payer: owner, reservationId: 'first' });
    await service.eventStore.append(dataItemStream(id), [toNewEvent(accepted, newEventId(), meta)], 'no_stream');
    await service.accounts.execute({ type: 'Settle', data: { address: owner, reservationId: 'first', now: Date.now() } }, meta);

    const outcome = await second;
    expect(outcome.kind).to.equal('accepted');
    expect(outcome.kind === 'accepted' && outcome.state.receipt).to.deep.equal(accepted.data.receipt);
    const account = await service.accounts.read(owner);
    expect({ available: availableOf(account), spent: account.spent, open: account.reservations.size }).to.deep.equal({ available: 0n, spent: 300n, open: 0 });
  });

  it('reserves the credits itself when the other upload gives its reservation back without accepting', async () => {
    await reserveFirst();
    const second = reserveOrAwaitRacing(deps(), request);
    await service.accounts.execute({ type: 'Release', data: { address: owner, reservationId: 'first', reason: 'upload failed', now: Date.now() } }, meta);

    const outcome = await second;
    expect(outcome.kind === 'reserved' && { payer: outcome.payment.payer, winc: outcome.payment.winc }).to.deep.equal({ payer: owner, winc: 300n });
    expect(availableOf(await service.accounts.read(owner))).to.equal(0n);
  });

  it('answers Insufficient balance when the credits are held for another item', async () => {
    await reserveFirst(itemId(8));
    const error = await reserveOrAwaitRacing(deps(), request).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InsufficientBalance);
  });

  it('answers Insufficient balance after its wait when the other upload neither accepts nor gives its reservation back', async () => {
    await reserveFirst();
    const error = await reserveOrAwaitRacing(deps(300), request).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InsufficientBalance);
    expect((await service.items.read(id)).status).to.equal('absent');
  });

  it('counts the other upload as under way whichever of its reads the other upload accepts and settles before', async () => {
    // the early check of a single upload, when nobody can pay: the other upload accepts and settles
    // before one of the check's reads of the streams, or after all of them (read 3 never comes)
    const accepted = dataItemAccepted(id, { winc: '300', payer: owner, reservationId: 'first' });
    const seen: boolean[] = [];
    for (const before of [0, 1, 2, 3]) {
      await service.close();
      service = await startTestService();
      await service.accounts.execute({ type: 'Credit', data: { address: owner, winc: 300n, creditId: 'c1', now: Date.now() } }, meta);
      await reserveFirst();
      const winner = async () => {
        await service.eventStore.append(dataItemStream(id), [toNewEvent(accepted, newEventId(), meta)], 'no_stream');
        await service.accounts.execute({ type: 'Settle', data: { address: owner, reservationId: 'first', now: Date.now() } }, meta);
      };
      let reads = 0;
      const readNumber = async () => {
        if (reads++ === before) await winner();
      };
      const accounts = { read: async (key: string) => (await readNumber(), service.accounts.read(key)) } as unknown as typeof service.accounts;
      const loadItem = async () => (await readNumber(), service.items.read(id));
      seen.push(await acceptanceUnderWay({ accounts, loadItem }, request));
    }
    expect(seen).to.deep.equal([true, true, true, true]);
  });
});
