import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startArlocal, type Arlocal } from '../support/arlocal.js';
import { startFaultyGateway, type FaultyGateway, type GatewayFault, type GatewayRoute } from '../support/faultyGateway.js';
import {
  BLOCKS_TO_PERMANENT,
  bundleEvents,
  bundleState,
  expectOffsetsInBundle,
  liveBundleIds,
  ofType,
  plansOf,
  queued,
  startBundlerNode,
  statusesOf,
  uploadItems,
  type BundlerNode,
} from '../bundler/harness.js';

/**
 * The bundler against arlocal behind a proxy that refuses, fails, stalls or loses requests: a pass
 * that meets a fault records nothing new and loses nothing; once the gateway behaves, the same plan
 * goes on to permanence. A transaction the network never mines is dropped and its items bundled again.
 */
describe('bundler under gateway faults (arlocal behind a faulty proxy)', function () {
  this.timeout(60_000);
  let arlocal: Arlocal;
  let gateway: FaultyGateway;
  let node: BundlerNode | undefined;

  before(async () => {
    arlocal = await startArlocal();
  });
  beforeEach(async () => {
    // the bundler's gateway gives up after 600 ms: a slow answer comes after 1.5 s
    gateway = await startFaultyGateway(arlocal.url, { slowMs: 1_500 });
  });
  afterEach(async () => {
    await gateway.close();
    if (!node) return;
    await node.stop();
    await rm(node.dataDir, { recursive: true, force: true });
    node = undefined;
  });
  after(async () => {
    await arlocal?.stop();
  });

  async function start(env: Record<string, string> = {}): Promise<BundlerNode> {
    node = await startBundlerNode({ heightUrl: arlocal.url, gatewayUrl: gateway.url, env });
    await arlocal.mint(node.service.walletAddress, '100000000000000000');
    return node;
  }

  /** the one plan holding all of `items`, and that no item is in another */
  async function onlyPlanOf(items: readonly DataItem[]): Promise<string> {
    const plans = await Promise.all(items.map((i) => plansOf(node!.service, i.id)));
    expect(new Set(plans.flat()).size, 'plans holding the items').to.equal(1);
    return plans[0]![0]!;
  }

  it('makes no progress and loses nothing while a step meets refusals, 500s or slow answers, then takes every item to FINALIZED', async () => {
    const { service } = await start();
    // 300 kB + 2 small: two chunks, so a chunk failure can fall between them
    const items = await uploadItems(service, [300_000, 2_000, 5_000]);

    // the whole gateway down (connections refused): the plan is recorded, nothing else
    await gateway.down();
    await node!.pass();
    await gateway.up();
    const planId = await onlyPlanOf(items);
    expect((await bundleState(service, planId))?.status).to.equal('planned');

    const steps: { routes: GatewayRoute[]; stuckAt: string }[] = [
      { routes: ['price', 'anchor', 'info'], stuckAt: 'planned' },
      { routes: ['tx'], stuckAt: 'prepared' },
      { routes: ['chunk'], stuckAt: 'posted' },
      { routes: ['status'], stuckAt: 'seeded' },
    ];
    for (const { routes, stuckAt } of steps) {
      for (const fault of ['refuse', 'error', 'slow'] as GatewayFault[]) {
        gateway.heal();
        gateway.set(routes, fault);
        // two passes: the first may first take the steps before the faulty one
        for (let pass = 0; pass < 2; pass++) {
          const before = gateway.seen.length;
          await node!.pass();
          const met = gateway.seen.slice(before).filter((r) => routes.includes(r.route) && r.fault === fault);
          expect(met.length, `${fault} on ${routes.join('/')} met (${node!.logs.at(-1)})`).to.be.greaterThan(0);
          expect((await bundleState(service, planId))?.status, `${fault} on ${routes.join('/')}`).to.equal(stuckAt);
          expect(await liveBundleIds(service)).to.deep.equal([planId]);
          expect(await onlyPlanOf(items)).to.equal(planId);
          for (const item of items) expect((await queued(service, item.id))?.planId).to.equal(planId);
          for (const status of await statusesOf(service, items)) expect(status).to.include({ status: 'CONFIRMED', info: 'pending' });
        }
        // within the backoff a pass leaves the bundle alone: no request at all
        const before = gateway.seen.length;
        await node!.bundler.runOnce();
        expect(gateway.seen.length).to.equal(before);
      }
      // the status step is reached with the bundle seeded: mined now, it is permanent once status answers
      if (stuckAt === 'posted') {
        gateway.heal();
        gateway.set('status', 'refuse');
        await node!.pass();
        expect((await bundleState(service, planId))?.status).to.equal('seeded');
        await arlocal.mine(BLOCKS_TO_PERMANENT);
      }
    }

    gateway.heal();
    await node!.pass();
    const bundle = await bundleState(service, planId);
    expect(bundle?.status).to.equal('permanent');
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'FINALIZED', info: 'permanent', bundleId: bundle!.txId });
    expect(await liveBundleIds(service)).to.deep.equal([]);
    // one transaction, and each chunk reached arlocal once although chunks failed in six passes
    expect([...gateway.txPosts().keys()]).to.deep.equal([bundle!.txId]);
    const forwarded = gateway.seen.filter((r) => r.route === 'chunk' && r.forwarded).map((r) => r.chunk);
    expect(forwarded).to.have.length(2);
    expect(new Set(forwarded).size).to.equal(2);
    await expectOffsetsInBundle(service, arlocal, items, bundle!.txId!);
  });

  it('resumes an interrupted chunk upload at the chunk that failed', async () => {
    const { service } = await start();
    const items = await uploadItems(service, [300_000, 300_000]);
    // the first chunk goes through, the second fails
    gateway.set('chunk', 'error', { after: 1 });
    await node!.pass();
    const [planId] = await plansOf(service, items[0]!.id);
    expect((await bundleState(service, planId!))?.status).to.equal('posted');
    gateway.heal();
    await node!.pass();
    expect((await bundleState(service, planId!))?.status).to.equal('seeded');

    const sent = [...gateway.chunkPosts().values()];
    // three chunks: the first sent once, the second twice (failed, then resumed), the third once
    expect(sent).to.deep.equal([1, 2, 1]);
    await arlocal.mine(BLOCKS_TO_PERMANENT);
    await node!.pass();
    for (const status of await statusesOf(service, items)) expect(status).to.include({ status: 'FINALIZED', info: 'permanent' });
  });

  it('posts the same transaction again when the answers to its header and a chunk were lost', async () => {
    const { service } = await start();
    const items = await uploadItems(service, [300_000, 1_000]);
    gateway.set('tx', 'lose');
    gateway.set('chunk', 'lose', { after: 1 });
    await node!.pass();
    const [planId] = await plansOf(service, items[0]!.id);
    expect((await bundleState(service, planId!))?.status).to.equal('prepared');
    gateway.set('tx', 'pass');
    await node!.pass();
    // the header went once more (answered: already there), the lost chunk once more (arlocal had it)
    const bundle = await bundleState(service, planId!);
    expect(bundle?.status).to.equal('posted');
    gateway.heal();
    await node!.pass();
    expect((await bundleState(service, planId!))?.status).to.equal('seeded');
    expect(gateway.txPosts()).to.deep.equal(new Map([[bundle!.txId!, 2]]));
    await arlocal.mine(BLOCKS_TO_PERMANENT);
    await node!.pass();
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'FINALIZED', info: 'permanent', bundleId: bundle!.txId });
    await expectOffsetsInBundle(service, arlocal, items, bundle!.txId!);
  });

  it('drops a bundle the network never mined 50 blocks after its anchor, and bundles its items again under a new transaction', async () => {
    const { service } = await start();
    const items = await uploadItems(service, [3_000, 4_000]);
    gateway.set(['tx', 'chunk'], 'drop');
    await node!.pass();
    const [firstPlan] = await plansOf(service, items[0]!.id);
    const first = await bundleState(service, firstPlan!);
    expect(first?.status).to.equal('seeded');

    await arlocal.mine(50);
    await node!.pass();
    expect((await bundleState(service, firstPlan!))?.status, '50 blocks after the anchor').to.equal('seeded');
    await arlocal.mine(1);
    await node!.pass();
    expect((await bundleState(service, firstPlan!))?.status).to.equal('dropped');
    const [dropped] = ofType(await bundleEvents(service), 'BundleDropped');
    expect(dropped?.data).to.include({ planId: firstPlan, txId: first!.txId, reason: 'not seen 51 blocks after its anchor (not_found)' });
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'CONFIRMED', info: 'new' });
    for (const item of items)
      expect(await queued(service, item.id)).to.deep.equal({
        size: item.getRaw().length,
        acceptedAt: (await queued(service, item.id))!.acceptedAt,
        attempts: 1,
      });

    gateway.heal();
    await node!.pass();
    const plans = await plansOf(service, items[0]!.id);
    expect(plans).to.have.length(2);
    const second = await bundleState(service, plans[1]!);
    expect(second?.status).to.equal('seeded');
    expect(second?.txId).to.not.equal(first!.txId);
    await arlocal.mine(BLOCKS_TO_PERMANENT);
    await node!.pass();
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'FINALIZED', info: 'permanent', bundleId: second!.txId });
    await expectOffsetsInBundle(service, arlocal, items, second!.txId!);
  });

  it('drops a posted bundle whose header the gateway lost while its chunks kept failing', async () => {
    const { service } = await start();
    const items = await uploadItems(service, [3_000]);
    gateway.set('tx', 'drop');
    gateway.set('chunk', 'error');
    await node!.pass();
    const [planId] = await plansOf(service, items[0]!.id);
    expect((await bundleState(service, planId!))?.status).to.equal('posted');
    await arlocal.mine(51);
    await node!.pass();
    expect((await bundleState(service, planId!))?.status).to.equal('dropped');
    expect(await statusesOf(service, items)).to.deep.equal([{ status: 'CONFIRMED', info: 'new' }]);
  });

  it('fails items whose bundles were dropped MAX_BUNDLE_ATTEMPTS times: FAILED/failed, out of the queue, never planned again', async () => {
    const { service } = await start({ MAX_BUNDLE_ATTEMPTS: '2' });
    const items = await uploadItems(service, [3_000, 4_000]);
    gateway.set(['tx', 'chunk'], 'drop');
    for (let attempt = 1; attempt <= 2; attempt++) {
      await node!.pass(); // planned and seeded (the gateway says it took it)
      await arlocal.mine(51);
      await node!.pass(); // dropped
    }
    expect(ofType(await bundleEvents(service), 'BundleDropped')).to.have.length(2);
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'FAILED', info: 'failed' });
    for (const item of items) expect(await queued(service, item.id)).to.equal(undefined);
    gateway.heal();
    await node!.pass();
    expect(await plansOf(service, items[0]!.id)).to.have.length(2);
    expect(await liveBundleIds(service)).to.deep.equal([]);
  });
});
