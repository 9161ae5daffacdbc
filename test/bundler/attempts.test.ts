import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import { createBundler, type Bundler } from '../../src/app/bundler/bundler.js';
import { createWalletFunds } from '../../src/app/bundler/funds.js';
import type { ArweaveGateway } from '../../src/ports/gateway.js';
import { GatewayRejected, GatewayRequestError } from '../../src/ports/gatewayErrors.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { bundleEvents, ofType, plansOf, queued, startBundlerNode, statusesOf, uploadItems, type BundlerNode } from './harness.js';

const ANCHOR = 'A'.repeat(43);

/**
 * A gateway double at the bundler's edge: every call answers as a healthy gateway would, unless the
 * test replaces it. `height` is the network's height; `balance` the service wallet's.
 */
function scriptedGateway() {
  const state = { height: 1_000, balance: 10n ** 15n };
  const calls: ArweaveGateway = {
    price: async (bytes) => BigInt(bytes) * 10n,
    anchor: async () => ANCHOR,
    currentHeight: async () => state.height,
    walletBalance: async () => state.balance,
    postTransaction: async () => {},
    postChunk: async () => {},
    transactionStatus: async () => ({ status: 'not_found' }),
  };
  return { state, calls };
}

/**
 * What a bundle drop costs its items: MAX_BUNDLE_ATTEMPTS=1, so a drop that counts fails them at
 * once. A refusal that is about the service (its wallet's funds, the gateway's rate limit or its own
 * errors until the anchor expired) counts for nothing; a transaction the network took and lost does.
 */
describe('bundle attempts: what counts', function () {
  this.timeout(60_000);
  let info: Awaited<ReturnType<typeof startGatewayInfo>>;
  let node: BundlerNode;
  let bundler: Bundler | undefined;

  beforeEach(async () => {
    info = await startGatewayInfo(1_000);
    node = await startBundlerNode({ gatewayUrl: info.url, env: { MAX_BUNDLE_ATTEMPTS: '1', DROP_AFTER_BLOCKS: '50' } });
  });
  afterEach(async () => {
    await bundler?.stop();
    bundler = undefined;
    await node.stop();
    await rm(node.dataDir, { recursive: true, force: true });
    await info.close();
  });

  function start(gateway: ReturnType<typeof scriptedGateway>) {
    const warnings: string[] = [];
    const funds = createWalletFunds({
      gateway: gateway.calls,
      address: 'W'.repeat(43),
      refreshMs: 60_000,
      warn: (message) => warnings.push(message),
      now: Date.now,
    });
    bundler = createBundler({ ...node.deps, gateway: gateway.calls, funds });
    return {
      funds,
      warnings,
      async pass() {
        node.retryDue();
        await bundler!.runOnce();
      },
    };
  }

  const dropsOf = async () =>
    ofType(await bundleEvents(node.service), 'BundleDropped').map((e) => ({ reason: e.data.reason, countsAsAttempt: e.data.countsAsAttempt }));

  it('lets a bundle the wallet cannot pay for wait, once recorded, without an attempt; funded, it is posted', async () => {
    const gateway = scriptedGateway();
    gateway.state.balance = 0n;
    const b = start(gateway);
    const [item] = await uploadItems(node.service, [1_000]);
    for (let i = 0; i < 4; i++) await b.pass();
    const events = await bundleEvents(node.service);
    const [planId] = await plansOf(node.service, item!.id);
    const reward = (BigInt(ofType(events, 'BundlePlanned')[0]!.data.totalSize) * 10n).toString();
    expect(ofType(events, 'BundleAwaitingFunds').map((e) => e.data)).to.deep.equal([
      { planId, reward, balance: '0', address: 'W'.repeat(43), timestamp: ofType(events, 'BundleAwaitingFunds')[0]!.data.timestamp },
    ]);
    expect(ofType(events, 'BundlePrepared')).to.deep.equal([]);
    expect(await dropsOf()).to.deep.equal([]);
    expect(b.funds.snapshot()).to.deep.include({ balance: '0', waitingBundles: 1, shortBy: reward });
    expect(b.warnings).to.deep.equal(['the service wallet cannot pay for the bundles due: they wait until it is funded']);
    expect(await statusesOf(node.service, [item!])).to.deep.equal([{ status: 'CONFIRMED', info: 'pending' }]);

    // funded: a waiting bundle goes on once a balance read (the background refresh) shows it
    gateway.state.balance = 10n ** 15n;
    await b.pass();
    expect(ofType(await bundleEvents(node.service), 'BundlePrepared')).to.deep.equal([]);
    await b.funds.refresh();
    await b.pass();
    expect(ofType(await bundleEvents(node.service), 'BundleSeeded').map((e) => e.data.planId)).to.deep.equal([planId]);
    expect(b.funds.snapshot()).to.deep.include({ waitingBundles: 0 });
    expect(b.warnings).to.have.length(2);
    expect(b.warnings[1]).to.equal('the service wallet pays for the bundles again: none waits for funds');
  });

  it('counts no attempt for a post refused for funds: the items are planned again and wait', async () => {
    const gateway = scriptedGateway();
    gateway.calls.postTransaction = async () => {
      throw new GatewayRejected("POST /tx refused: HTTP 410: You don't have enough tokens", 410, '{"code":410,"msg":"You don\'t have enough tokens"}', 'funds');
    };
    const b = start(gateway);
    const [item] = await uploadItems(node.service, [1_000]);
    await b.pass();
    const drops = await dropsOf();
    expect(drops).to.have.length(1);
    expect(drops[0]!.countsAsAttempt).to.equal(false);
    expect(await queued(node.service, item!.id)).to.deep.include({ attempts: 0 });
    expect(await statusesOf(node.service, [item!])).to.deep.equal([{ status: 'CONFIRMED', info: 'new' }]);
    // the balance did not grow since the refusal: the next plan waits rather than being refused again
    await b.pass();
    const events = await bundleEvents(node.service);
    expect(ofType(events, 'BundlePlanned')).to.have.length(2);
    expect(ofType(events, 'BundleAwaitingFunds')).to.have.length(1);
    expect(ofType(events, 'BundlePrepared')).to.have.length(1);
    expect(await statusesOf(node.service, [item!])).to.deep.equal([{ status: 'CONFIRMED', info: 'pending' }]);
  });

  for (const [what, error] of [
    ['429 (rate limit)', new GatewayRequestError('POST /tx answered HTTP 429', { kind: 'status', status: 429 })],
    ['500', new GatewayRequestError('POST /tx answered HTTP 500', { kind: 'status', status: 500 })],
    ['an unreachable gateway', new GatewayRequestError('POST /tx: connection refused', { kind: 'unreachable', code: 'ECONNREFUSED' })],
  ] as const) {
    it(`counts no attempt for a header the gateway never took (${what} until the anchor expired)`, async () => {
      const gateway = scriptedGateway();
      gateway.calls.postTransaction = async () => {
        throw error;
      };
      const b = start(gateway);
      const [item] = await uploadItems(node.service, [1_000]);
      await b.pass();
      expect(await dropsOf()).to.deep.equal([]);
      gateway.state.height += 51;
      await b.pass();
      const drops = await dropsOf();
      expect(drops).to.have.length(1);
      expect(drops[0]!.countsAsAttempt).to.equal(false);
      expect(drops[0]!.reason).to.match(/^never taken by the gateway: not seen 51 blocks after its anchor \(not_found\)$/);
      expect(await statusesOf(node.service, [item!])).to.deep.equal([{ status: 'CONFIRMED', info: 'new' }]);
      expect(await queued(node.service, item!.id)).to.deep.include({ attempts: 0 });
    });
  }

  it('counts an attempt for a transaction the network took and lost: its items fail at the limit', async () => {
    const gateway = scriptedGateway();
    const b = start(gateway);
    const [item] = await uploadItems(node.service, [1_000]);
    await b.pass();
    expect(ofType(await bundleEvents(node.service), 'BundleSeeded')).to.have.length(1);
    gateway.state.height += 51;
    await b.pass();
    expect(await dropsOf()).to.deep.equal([{ reason: 'not seen 51 blocks after its anchor (not_found)', countsAsAttempt: true }]);
    expect(await statusesOf(node.service, [item!])).to.deep.equal([{ status: 'FAILED', info: 'failed' }]);
  });

  it('counts an attempt for a refusal of the transaction itself', async () => {
    const gateway = scriptedGateway();
    gateway.calls.postTransaction = async () => {
      throw new GatewayRejected('POST /tx refused: HTTP 400: Transaction verification failed.', 400, 'Transaction verification failed.', 'transaction');
    };
    const b = start(gateway);
    const [item] = await uploadItems(node.service, [1_000]);
    await b.pass();
    expect((await dropsOf()).map((d) => d.countsAsAttempt)).to.deep.equal([true]);
    expect(await statusesOf(node.service, [item!])).to.deep.equal([{ status: 'FAILED', info: 'failed' }]);
  });
});
