import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from '../support/arlocal.js';
import { startTestService, type TestService } from '../support/testService.js';
import { bundleEvents, ofType, statusesOf, uploadItems } from '../bundler/harness.js';
import { eventually } from '../support/eventually.js';

const metric = (text: string, name: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
};

/**
 * The service's wallet runs dry (arlocal refuses `POST /tx` from a wallet short of the reward: "You
 * don't have enough tokens"). Before, each refusal was a dropped attempt and every receipted item
 * ended FAILED a pass later; now the bundles wait, and say so, until the wallet is funded.
 */
describe('an unfunded service wallet (arlocal)', function () {
  this.timeout(180_000);
  let arlocal: Arlocal;
  let service: TestService;

  before(async () => {
    arlocal = await startArlocal();
    // one attempt allowed, passes and balance reads five times a second: a drop would fail the items at once
    service = await startTestService({
      GATEWAY_URL: arlocal.url,
      ...ARLOCAL_HEIGHT_SETTINGS,
      BUNDLER_ENABLED: 'true',
      BUNDLER_INTERVAL_MS: '200',
      WALLET_BALANCE_REFRESH_MS: '200',
      BUNDLE_MAX_WAIT_MS: '0',
      MAX_BUNDLE_ATTEMPTS: '1',
      CONFIRMATIONS: '2',
    });
  });
  after(async () => {
    await service?.close();
    await arlocal?.stop();
  });

  const summary = async () => (await (await fetch(`${service.url}/dashboard/api/summary`)).json()) as { funds: Record<string, unknown> | null };
  const failed = async (items: readonly DataItem[]) => (await statusesOf(service, items)).some((s) => s.status === 'FAILED');

  it('keeps the items waiting, shows why, and bundles them once the wallet is funded', async () => {
    const address = service.walletAddress;
    const items = await uploadItems(service, [1_000, 300_000]);

    // every plan holding the items recorded its wait, and the balance was read three more times
    // since (or, before this change, an item failed)
    const readsSeen = new Set<string>();
    await eventually(
      async () => {
        if (await failed(items)) return true;
        const events = await bundleEvents(service);
        const holding = ofType(events, 'BundlePlanned').filter((e) => e.data.items.some((i) => items.some((item) => item.id === i.id)));
        const waiting = new Set(ofType(events, 'BundleAwaitingFunds').map((e) => e.data.planId));
        const planned = new Set(holding.flatMap((e) => e.data.items.map((i) => i.id)));
        if (planned.size < items.length || !holding.every((e) => waiting.has(e.data.planId))) return false;
        const readAt = (await summary()).funds?.readAt;
        if (typeof readAt === 'string') readsSeen.add(readAt);
        return readsSeen.size >= 4;
      },
      Boolean,
      'the bundles waiting through three balance reads, or an item failed',
      90_000,
      100,
    );
    // a pass after those reads, for good measure: the bundler had every chance to drop it
    await service.bundler.runOnce();

    expect(await statusesOf(service, items)).to.deep.equal(items.map(() => ({ status: 'CONFIRMED', info: 'pending' })));
    const events = await bundleEvents(service);
    // one wait recorded per plan (the bundler may have planned the two items apart, as they came)
    const plans = ofType(events, 'BundlePlanned').map((e) => e.data.planId);
    const waits = ofType(events, 'BundleAwaitingFunds');
    expect(waits.map((e) => e.data.planId).sort()).to.deep.equal([...plans].sort());
    for (const wait of waits) expect(wait.data).to.include({ balance: '0', address });
    expect(ofType(events, 'BundlePrepared')).to.deep.equal([]);
    expect(ofType(events, 'BundleDropped')).to.deep.equal([]);

    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metric(metrics, 'bundles_waiting_for_funds')).to.equal(plans.length);
    expect(metric(metrics, 'wallet_balance_winston')).to.equal(0);
    const { funds } = await summary();
    const rewards = waits.reduce((sum, e) => sum + BigInt(e.data.reward), 0n);
    expect(funds).to.deep.include({ address, balance: '0', waitingBundles: plans.length, shortBy: rewards.toString() });
    // receipts stay honest: the items wait, they are not lost, and uploads go on
    expect((await fetch(`${service.url}/ready`)).status).to.equal(200);
    const [later] = await uploadItems(service, [2_000]);

    await arlocal.mint(address, '100000000000000000');
    const all = [...items, later!];
    await eventually(
      async () => {
        await arlocal.mine(1);
        return (await statusesOf(service, all)).every((s) => s.status === 'FINALIZED');
      },
      Boolean,
      'every item FINALIZED',
      90_000,
      100,
    );
    const after = await bundleEvents(service);
    expect(ofType(after, 'BundleDropped')).to.deep.equal([]);
    expect(ofType(after, 'BundlePermanent').map((e) => e.data.planId)).to.include.members(plans);
    await eventually(
      async () => (await summary()).funds?.waitingBundles,
      (waiting) => waiting === 0,
      'no bundle waiting for funds',
      90_000,
      100,
    );
    expect(metric(await (await fetch(`${service.url}/metrics`)).text(), 'bundles_waiting_for_funds')).to.equal(0);

    // the audit takes the wait in its stride
    const findings: Finding[] = [];
    await runAudit({ eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, now: Date.now }, (f) => findings.push(f));
    expect(findings).to.deep.equal([]);
  });
});
