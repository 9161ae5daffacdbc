import { expect } from 'chai';
import { createTopUps, wincOf, type TopUpChain } from '../../src/app/topUps.js';
import { InvalidTransaction } from '../../src/domain/errors.js';
import type { Transfer } from '../../src/ports/transfers.js';
import type { PendingTopUp } from '../../projections/index.js';
import { initialAccountState } from '../../src/domain/account/state.js';

/** The claim's own rules, with the chain read and the repositories at the edge (the real chains: arweave.test.ts, ethereum.test.ts). */
const SERVICE = '0xFFcf8FDEE72ac11b5c542428B35EEF5769C409f0';
const USER = '0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1';
const TX = `0x${'ab'.repeat(32)}`;

function claimsWith(transfer: Transfer | undefined, pending: PendingTopUp[] = []) {
  const appended: string[] = [];
  let clock = 1;
  const chain: TopUpChain = {
    source: { transfer: async () => transfer },
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
  });
  return { topUps, appended, advance: (ms: number) => (clock += ms) };
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
