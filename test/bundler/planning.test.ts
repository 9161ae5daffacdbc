import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import { planBundles } from '../../src/app/bundler/plan.js';
import { createBundler } from '../../src/app/bundler/bundler.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { bundleEvents, ofType, plansOf, queued, startBundlerNode, statusesOf, uploadItems, type BundlerNode } from './harness.js';

/**
 * The planning half of a pass, on the real service: an item is never in two live plans, whatever
 * the read models' lag or the passes' overlap, and an item out of attempts is failed, not planned.
 * The gateway only knows `/info`: no bundle here gets past "planned", which is all these need.
 */
describe('bundle planning', function () {
  this.timeout(30_000);
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  let node: BundlerNode;

  beforeEach(async () => {
    gateway = await startGatewayInfo(1_000);
  });
  afterEach(async () => {
    await node?.stop();
    await rm(node.dataDir, { recursive: true, force: true });
    await gateway.close();
  });

  it('plans nothing while the read models are behind the event store', async () => {
    node = await startBundlerNode({ gatewayUrl: gateway.url });
    const items = await uploadItems(node.service, [1_000, 2_000]);
    // the projector did not reach the head in time: the queue may not show plans already recorded
    expect(await planBundles({ ...node.deps, awaitProjection: async () => false })).to.deep.equal([]);
    expect(ofType(await bundleEvents(node.service), 'BundlePlanned')).to.deep.equal([]);
    expect(await statusesOf(node.service, items)).to.deep.equal([
      { status: 'CONFIRMED', info: 'new' },
      { status: 'CONFIRMED', info: 'new' },
    ]);

    const [planId] = await planBundles(node.deps);
    expect(await planBundles(node.deps)).to.deep.equal([]);
    for (const item of items) expect(await plansOf(node.service, item.id)).to.deep.equal([planId]);
  });

  it('plans a small item once BUNDLE_MAX_WAIT_MS passed on the monotonic clock, the wall clock stepped a day back (issue 34)', async () => {
    node = await startBundlerNode({ gatewayUrl: gateway.url, env: { BUNDLE_MAX_WAIT_MS: '60000' } });
    const [item] = await uploadItems(node.service, [1_000]);
    let wall = Date.now();
    let monotonic = 0;
    const bundler = createBundler({ ...node.deps, now: () => wall, monotonic: () => monotonic });
    await bundler.runOnce();
    wall -= 86_400_000;
    monotonic += 30_000;
    await bundler.runOnce();
    expect(ofType(await bundleEvents(node.service), 'BundlePlanned')).to.deep.equal([]);
    monotonic += 30_000;
    await bundler.runOnce();
    expect(await plansOf(node.service, item!.id)).to.have.length(1);
    await bundler.stop();
  });

  it('never runs two passes at once: passes asked for together plan each item once', async () => {
    node = await startBundlerNode({ gatewayUrl: gateway.url });
    const items = await uploadItems(node.service, [1_000, 2_000, 3_000]);
    await Promise.all([node.bundler.runOnce(), node.bundler.runOnce(), node.bundler.runOnce()]);
    const planned = ofType(await bundleEvents(node.service), 'BundlePlanned');
    expect(planned).to.have.length(1);
    expect(planned[0]!.data.items.map((i) => i.id).sort()).to.deep.equal(items.map((i) => i.id).sort());
  });

  it('lets only the holder of the bundler lease plan, until its lease runs out', async () => {
    node = await startBundlerNode({ gatewayUrl: gateway.url });
    const items = await uploadItems(node.service, [1_000]);
    const lease = (holder: string, now: number) => () => node.service.readStore.tryLease('bundler', holder, 30_000, now);
    const first = createBundler({ ...node.deps, holdLease: lease('first', 0) });
    const second = createBundler({ ...node.deps, holdLease: lease('second', 1_000) });
    await first.runOnce();
    const planned = ofType(await bundleEvents(node.service), 'BundlePlanned');
    expect(planned).to.have.length(1);
    await uploadItems(node.service, [2_000]);
    await second.runOnce();
    expect(ofType(await bundleEvents(node.service), 'BundlePlanned')).to.have.length(1);
    const takeover = createBundler({ ...node.deps, holdLease: lease('second', 30_001) });
    await takeover.runOnce();
    expect(ofType(await bundleEvents(node.service), 'BundlePlanned')).to.have.length(2);
    for (const b of [first, second, takeover]) await b.stop();
    expect(planned[0]!.data.items.map((i) => i.id)).to.deep.equal([items[0]!.id]);
  });

  it('fails, rather than plans again, an item whose last allowed bundle was dropped by a process that stopped before failing it', async () => {
    node = await startBundlerNode({ gatewayUrl: gateway.url, env: { MAX_BUNDLE_ATTEMPTS: '1' } });
    const items = await uploadItems(node.service, [1_000]);
    const [planId] = await planBundles(node.deps);
    // the drop recorded as a process would, which then stopped before recording DataItemFailed
    const { position } = await node.deps.bundles.execute(
      { type: 'Drop', data: { planId: planId!, reason: 'test', now: Date.now() } },
      { correlationId: 'test' },
    );
    await node.service.projections.waitFor(position!, 5_000);
    expect(await queued(node.service, items[0]!.id)).to.include({ attempts: 1 });

    await node.bundler.runOnce();
    expect(await statusesOf(node.service, items)).to.deep.equal([{ status: 'FAILED', info: 'failed' }]);
    expect(await queued(node.service, items[0]!.id)).to.equal(undefined);
    expect(await plansOf(node.service, items[0]!.id)).to.deep.equal([planId]);
  });
});
