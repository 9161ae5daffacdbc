import { expect } from 'chai';
import { createTopUps, wincOf, type TopUpChain } from '../../src/app/accounts/topUps.js';
import { InvalidTransaction, ServiceUnavailable } from '../../src/domain/errors.js';
import type { Transfer } from '../../src/ports/transfers.js';
import type { PendingTopUp } from '../../projections/index.js';
import { initialAccountState } from '../../src/domain/account/state.js';

/** The claim's own rules, with the chain read and the repositories at the edge (the real chains: arweave.test.ts, ethereum.test.ts). */
const SERVICE = '0xFFcf8FDEE72ac11b5c542428B35EEF5769C409f0';
const USER = '0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1';
const TX = `0x${'ab'.repeat(32)}`;

function claimsWith(transfer: Transfer | undefined, pending: PendingTopUp[] = [], unknownTxCacheMs = 0) {
  const appended: string[] = [];
  const asked: string[] = [];
  let clock = 1;
  let monotonic = 5_000;
  const chain: TopUpChain = {
    source: { transfer: async (txId) => (asked.push(txId), transfer) },
    address: SERVICE,
    minConfirmations: 2,
    wincPerToken: 3n * 10n ** 15n,
    unitsPerToken: 10n ** 18n,
  };
  const topUps = createTopUps({
    chains: new Map([['ethereum', chain]]),
    topUps: { execute: async (command) => (appended.push(command.type), { events: [], state: { status: 'unclaimed' } }) },
    accounts: {
      execute: async (command) => (appended.push(command.type), { events: [], state: undefined as never }),
      read: async () => initialAccountState,
    },
    readStore: { scan: async <T>() => pending.map((doc) => ({ id: `${doc.token}:${doc.txId}`, doc: doc as T, position: 1n })) },
    now: () => clock,
    pendingMaxAgeMs: 1000,
    unknownTxCacheMs,
    monotonicNow: () => monotonic,
  });
  return { topUps, appended, asked, advance: (ms: number) => (clock += ms), advanceMonotonic: (ms: number) => (monotonic += ms) };
}
const transfer = (over: Partial<Transfer> = {}): Transfer => ({
  txId: TX,
  sender: USER,
  target: SERVICE,
  quantity: 10n ** 9n,
  failed: false,
  status: { confirmed: true, blockHeight: 5, confirmations: 2 },
  ...over,
});

describe('top-up claims', () => {
  it('credits a transfer to the service with its confirmations at the rate, rounded down', async () => {
    const { topUps, appended } = claimsWith(transfer({ quantity: 10n ** 9n + 1n }));
    const outcome = await topUps.claim('ethereum', TX, { correlationId: 'test' });
    expect([outcome.confirmed, outcome.claim.winc, outcome.blockHeight]).to.deep.equal([true, '3000000', 5]);
    expect(appended).to.deep.equal(['Claim', 'Credit']);
    expect(wincOf({ wincPerToken: 1n, unitsPerToken: 10n }, 19n)).to.equal(1n);
  });

  it('refuses, recording nothing, a failed transfer, one to another address, one with no recipient and an unknown one', async () => {
    for (const t of [transfer({ failed: true }), transfer({ target: USER }), transfer({ target: undefined }), undefined]) {
      const { topUps, appended } = claimsWith(t);
      const error = await topUps.claim('ethereum', TX, { correlationId: 'test' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(
        error,
        JSON.stringify(t, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      ).to.be.instanceOf(InvalidTransaction);
      expect(appended).to.deep.equal([]);
    }
  });

  it('asks the chain with the canonical hash, whatever the spelling claimed; one with none is refused unasked', async () => {
    const { topUps, asked } = claimsWith(transfer());
    const outcome = await topUps.claim('ethereum', `0X${TX.slice(2).toUpperCase()}`, { correlationId: 'test' });
    expect([outcome.claim.txId, asked]).to.deep.equal([TX, [TX]]);
    const refused = await topUps.claim('ethereum', `${TX}0`, { correlationId: 'test' }).catch((e: unknown) => e);
    expect([refused instanceof InvalidTransaction, asked.length]).to.deep.equal([true, 1]);
  });

  it('refuses as unreadable (503), recording nothing, a chain that answers about another transaction than the one asked', async () => {
    const { topUps, appended } = claimsWith(transfer({ txId: `0x${'cd'.repeat(32)}` }));
    const error = await topUps.claim('ethereum', TX, { correlationId: 'test' }).catch((e: unknown) => e);
    expect([error instanceof ServiceUnavailable, appended]).to.deep.equal([true, []]);
  });

  it('answers an unknown transaction from memory until the cache age has passed on the monotonic clock, then asks again', async () => {
    const { topUps, asked, advance, advanceMonotonic } = claimsWith(undefined, [], 10_000);
    const refused = async () => (await topUps.claim('ethereum', TX, { correlationId: 'test' }).catch((e: unknown) => e)) instanceof InvalidTransaction;
    expect(await refused()).to.equal(true);
    // the wall clock stepping forward a day changes nothing: ages run on the monotonic clock
    advance(86_400_000);
    advanceMonotonic(9_999);
    expect([await refused(), asked.length]).to.deep.equal([true, 1]);
    advanceMonotonic(1);
    expect([await refused(), asked.length]).to.deep.equal([true, 2]);
  });

  it('claims a transfer short of its confirmations without crediting it', async () => {
    const { topUps, appended } = claimsWith(transfer({ status: { confirmed: true, blockHeight: 5, confirmations: 1 } }));
    expect((await topUps.claim('ethereum', TX, { correlationId: 'test' })).confirmed).to.equal(false);
    expect(appended).to.deep.equal(['Claim']);
  });

  it('expires a pending claim whose transaction the chain no longer knows, once older than the limit, and not before', async () => {
    const doc: PendingTopUp = { token: 'ethereum', txId: TX, address: USER, winc: '5', timestamp: 1 };
    const { topUps, appended, advance } = claimsWith(undefined, [doc]);
    expect(await topUps.creditPending()).to.deep.equal({ credited: 0, pending: 1, expired: 0 });
    expect(appended).to.deep.equal([]);
    advance(1001);
    // the repository at the edge decides nothing here: the command is what is checked
    expect(await topUps.creditPending()).to.deep.equal({ credited: 0, pending: 0, expired: 0 });
    expect(appended).to.deep.equal(['Expire']);
  });
});
