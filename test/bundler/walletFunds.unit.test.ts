import { expect } from 'chai';
import { createWalletFunds } from '../../src/app/bundler/funds.js';

/** The bundler's view of the wallet, on a balance the test sets: when a bundle waits, and what is said. */
describe('wallet funds', () => {
  function funds(balance: bigint) {
    const state = { balance, reads: 0, now: 1_000_000, monotonic: 0 };
    const warnings: string[] = [];
    const f = createWalletFunds({
      gateway: {
        walletBalance: async () => {
          state.reads++;
          return state.balance;
        },
      },
      address: 'wallet',
      refreshMs: 60_000,
      now: () => state.now,
      monotonic: () => state.monotonic,
      warn: (message) => warnings.push(message),
    });
    return { f, state, warnings };
  }

  it("reads a waiting bundle's balance again once refreshMs passed on the monotonic clock, not when the wall clock steps (issue 34)", async () => {
    const { f, state } = funds(0n);
    expect(await f.canPay('p1', 100n)).to.deep.equal({ enough: false, balance: 0n });
    state.balance = 100n;
    state.now += 86_400_000;
    expect(await f.canPay('p1', 100n)).to.deep.equal({ enough: false, balance: 0n });
    state.now -= 2 * 86_400_000;
    state.monotonic += 60_000;
    expect(await f.canPay('p1', 100n)).to.deep.equal({ enough: true, balance: 100n });
    expect(state.reads).to.equal(2);
  });

  it('reads the balance before judging a bundle short, then waits for a later read to cover it', async () => {
    const { f, state, warnings } = funds(0n);
    expect(await f.canPay('p1', 100n)).to.deep.equal({ enough: false, balance: 0n });
    expect(state.reads).to.equal(1);
    expect(f.snapshot()).to.deep.equal({ address: 'wallet', balance: '0', readAt: new Date(1_000_000).toISOString(), waitingBundles: 1, shortBy: '100' });
    // a second bundle is read for too (the wallet may have been funded since); the first one waits on the cached read
    state.balance = 50n;
    expect(await f.canPay('p2', 30n)).to.deep.equal({ enough: true, balance: 50n });
    expect(await f.canPay('p1', 100n)).to.deep.equal({ enough: false, balance: 50n });
    expect(state.reads).to.equal(2);
    expect(f.snapshot()).to.deep.include({ waitingBundles: 1, shortBy: '50' });
    state.balance = 1_000n;
    await f.refresh();
    expect(await f.canPay('p1', 100n)).to.deep.equal({ enough: true, balance: 1_000n });
    expect(f.snapshot()).to.deep.equal({ address: 'wallet', balance: '1000', readAt: new Date(1_000_000).toISOString(), waitingBundles: 0 });
    expect(warnings).to.deep.equal([
      'the service wallet cannot pay for the bundles due: they wait until it is funded',
      'the service wallet pays for the bundles again: none waits for funds',
    ]);
  });

  it('after a refusal for funds, covers nothing until a read shows another balance', async () => {
    const { f, state } = funds(1_000n);
    expect((await f.canPay('p1', 100n)).enough).to.equal(true);
    f.refused();
    expect((await f.canPay('p2', 100n)).enough).to.equal(false);
    await f.refresh();
    expect((await f.canPay('p2', 100n)).enough).to.equal(false);
    state.balance = 900n;
    await f.refresh();
    expect((await f.canPay('p2', 100n)).enough).to.equal(true);
  });

  it('forgets a waiting bundle that is no longer live', async () => {
    const { f, warnings } = funds(0n);
    await f.canPay('p1', 100n);
    f.retain(new Set(['other']));
    expect(f.snapshot().waitingBundles).to.equal(0);
    expect(warnings).to.have.length(2);
  });
});
