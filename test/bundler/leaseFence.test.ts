import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import { createBundler } from '../../src/app/bundler/bundler.js';
import { dropForDamage } from '../../src/app/bundler/damage.js';
import { failExhaustedItems } from '../../src/app/bundler/failItems.js';
import { LeaseFence } from '../../src/app/bundler/fence.js';
import { BundleRepository } from '../../src/app/bundles.js';
import type { BundleCommand } from '../../src/domain/bundle/decider.js';
import { bundleStream } from '../../src/domain/bundle/ids.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { bundlerLeaseStream, LeaseLost } from '../../src/domain/bundle/lease.js';
import { fromRecorded } from '../../src/domain/events.js';
import { history } from '../../src/history/history.js';
import type { EventMetadata, EventStore, StreamName } from '../../src/ports/eventStore.js';
import type { ArweaveGateway, TransactionStatus } from '../../src/ports/gateway.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { bundleEvents, ofType, plansOf, startBundlerNode, uploadItems, type BundlerNode } from './harness.js';

/** a gate a test opens: `reached` once something waits at it */
function gate() {
  let open!: () => void;
  let arrived!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  return { opened, reached, open, arrive: arrived };
}

/** A repository whose first command of `type` waits at the gate before it decides (a bundler paused there). */
class PausingBundles extends BundleRepository {
  readonly gate = gate();
  constructor(
    eventStore: EventStore,
    private pauseOn: BundleCommand['type'] | undefined,
  ) {
    super(eventStore);
  }
  override async execute(command: BundleCommand, metadata: Omit<EventMetadata, 'schemaVersion'>, beforeAppend?: () => Promise<void>) {
    if (command.type === this.pauseOn) {
      this.pauseOn = undefined;
      this.gate.arrive();
      await this.gate.opened;
    }
    return super.execute(command, metadata, beforeAppend);
  }
}

/** The event store, but the next append to `stream` waits at the gate (a pause between the fence's check and the write). */
function pausingAppendTo(eventStore: EventStore, stream: StreamName) {
  const paused = gate();
  let armed = true;
  const store: EventStore = Object.create(eventStore) as EventStore;
  store.append = async (name, events, expected) => {
    if (armed && name === stream) {
      armed = false;
      paused.arrive();
      await paused.opened;
    }
    return eventStore.append(name, events, expected);
  };
  return { store, gate: paused };
}

async function streamEvents(node: BundlerNode, stream: StreamName) {
  const events = [];
  for await (const recorded of node.service.eventStore.readStream(stream)) events.push(fromRecorded(recorded)!);
  return events;
}

/**
 * The bundler's lease is fenced: an instance paused past its lease (a GC pause, a slow disk) that
 * resumes after another took over appends nothing; it stops, and each bundle stays as the new
 * holder made it.
 */
describe('bundler lease fencing', function () {
  this.timeout(30_000);
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  let node: BundlerNode;

  beforeEach(async () => {
    gateway = await startGatewayInfo(1_000);
    node = await startBundlerNode({ gatewayUrl: gateway.url });
  });
  afterEach(async () => {
    await node?.stop();
    await rm(node.dataDir, { recursive: true, force: true });
    await gateway.close();
  });

  it('refuses the plan of a bundler that was paused past its lease while another planned the same items', async () => {
    const items = await uploadItems(node.service, [1_000, 2_000]);
    const { eventStore, readStore } = node.service;
    // each instance's clock: the first's stays at 0 (paused), the second's is past the first's lease
    const lease = (holder: string, now: number) => () => readStore.tryLease('bundler', holder, 5_000, now);
    const pausing = new PausingBundles(eventStore, 'Plan');
    const first = createBundler({ ...node.deps, bundles: pausing, holdLease: lease('first', 0), fence: new LeaseFence(eventStore, 'first', Date.now) });
    const firstPass = first.runOnce();
    await pausing.gate.reached;

    const second = createBundler({ ...node.deps, holdLease: lease('second', 10_000), fence: new LeaseFence(eventStore, 'second', Date.now) });
    await second.runOnce();
    const [planned] = ofType(await bundleEvents(node.service), 'BundlePlanned');
    expect(planned!.data.fence).to.equal(1);

    pausing.gate.open();
    await firstPass;
    await first.runOnce(); // and it stays stopped: the lease is the second's
    for (const b of [first, second]) await b.stop();

    expect(ofType(await bundleEvents(node.service), 'BundlePlanned')).to.deep.equal([planned]);
    for (const item of items) expect(await plansOf(node.service, item.id)).to.deep.equal([planned!.data.planId]);
    const takes = (await streamEvents(node, bundlerLeaseStream)).map((e) => e.data as { holder: string; token: number });
    expect(takes.map(({ holder, token }) => ({ holder, token }))).to.deep.equal([
      { holder: 'first', token: 0 },
      { holder: 'second', token: 1 },
    ]);
    const lines: string[] = [];
    for await (const line of history({ eventStore }, 'lease-bundler')) lines.push(line);
    expect(lines.map((l) => l.replace(/^#\d+ {2}\S+ {2}/, ''))).to.deep.equal([
      'lease-bundler',
      'BundlerLeaseTaken        first became the active bundler, fencing token 0  [correlation bundler]',
      'BundlerLeaseTaken        second became the active bundler, fencing token 1  [correlation bundler]',
    ]);
    expect(node.logs.filter((l) => l.startsWith('bundler: lease lost to another instance, pass stopped'))).to.have.length(1);
  });

  it('refuses the drop of a bundler that was paused past its lease while another recorded the bundle confirmed', async () => {
    const [item] = await uploadItems(node.service, [1_000]);
    const { eventStore, readStore } = node.service;
    // a bundle posted and seeded by an earlier process, its anchor taken at height 1000
    const planId = 'plan-seeded';
    const earlier = new BundleRepository(eventStore);
    const meta = { correlationId: 'earlier' };
    await earlier.execute(
      { type: 'Plan', data: { planId, items: [{ id: item!.id, size: 1_000, offset: 96 }], headerSize: 96, totalSize: 1_096, now: 1 } },
      meta,
    );
    const tx = { id: 't'.repeat(43) };
    await earlier.execute(
      { type: 'MarkPrepared', data: { planId, txId: tx.id, reward: '5', anchor: 'a', anchorHeight: 1_000, dataRoot: 'r', dataSize: 1_096, tx, now: 2 } },
      meta,
    );
    await earlier.execute({ type: 'MarkPosted', data: { planId, now: 3 } }, meta);
    const { position } = await earlier.execute({ type: 'MarkSeeded', data: { planId, now: 4 } }, meta);
    await node.service.projections.waitFor(position!, 10_000);

    // the gateway as each instance sees it: 100 blocks on; the first asks before the transaction was
    // mined (and is paused before the answer comes), the second after (in a block, not yet permanent)
    const gatewayAnswering = (status: () => Promise<TransactionStatus>): ArweaveGateway => {
      const unused = () => Promise.reject(new Error('not used by this test'));
      return {
        transactionStatus: status,
        currentHeight: async () => 1_100,
        price: unused,
        anchor: unused,
        postTransaction: unused,
        postChunk: unused,
        walletBalance: unused,
      };
    };
    const asked = gate();
    const firstGateway = gatewayAnswering(async () => {
      asked.arrive();
      await asked.opened;
      return { status: 'not_found' };
    });
    const secondGateway = gatewayAnswering(async () => ({ status: 'confirmed', blockHeight: 1_090, confirmations: 1 }));
    const lease = (holder: string, now: number) => () => readStore.tryLease('bundler', holder, 5_000, now);
    const first = createBundler({ ...node.deps, gateway: firstGateway, holdLease: lease('first', 0), fence: new LeaseFence(eventStore, 'first', Date.now) });
    const firstPass = first.runOnce();
    await asked.reached;

    const second = createBundler({
      ...node.deps,
      gateway: secondGateway,
      holdLease: lease('second', 10_000),
      fence: new LeaseFence(eventStore, 'second', Date.now),
    });
    await second.runOnce();
    asked.open();
    await firstPass;
    for (const b of [first, second]) await b.stop();

    expect((await streamEvents(node, bundleStream(planId))).map((e) => [e.type, (e.data as { fence?: number }).fence])).to.deep.equal([
      ['BundlePlanned', undefined],
      ['BundlePrepared', undefined],
      ['BundlePosted', undefined],
      ['BundleSeeded', undefined],
      ['BundleConfirmed', 1],
    ]);
    expect(await new BundleRepository(eventStore).read(planId)).to.include({ status: 'confirmed', blockHeight: 1_090, fence: 1 });
    expect(node.logs.filter((l) => l.startsWith('bundler: lease lost to another instance, pass stopped'))).to.have.length(1);
  });

  it('refuses a step appended after its check passed, once the new holder advanced the bundle meanwhile', async () => {
    const [item] = await uploadItems(node.service, [1_000]);
    const { eventStore } = node.service;
    const planId = 'plan-fenced';
    const firstFence = new LeaseFence(eventStore, 'first', Date.now);
    expect(await firstFence.take()).to.equal(true);
    const paused = pausingAppendTo(eventStore, bundleStream(planId));
    const first = firstFence.fenced(new BundleRepository(paused.store));
    const plan: BundleCommand = {
      type: 'Plan',
      data: { planId, items: [{ id: item!.id, size: 1_000, offset: 96 }], headerSize: 96, totalSize: 1_096, now: 1 },
    };
    paused.gate.open(); // the plan goes through
    await first.execute(plan, { correlationId: 'first' });

    const pausedDrop = pausingAppendTo(eventStore, bundleStream(planId));
    const firstAgain = firstFence.fenced(new BundleRepository(pausedDrop.store));
    // the first decided from what it saw before its pause: the bundle is gone from the network
    const drop = firstAgain.execute({ type: 'Drop', data: { planId, reason: 'not seen 51 blocks after its anchor', now: 2 } }, { correlationId: 'first' });
    await pausedDrop.gate.reached;

    const secondFence = new LeaseFence(eventStore, 'second', Date.now);
    expect(await secondFence.take()).to.equal(true);
    const second = secondFence.fenced(new BundleRepository(eventStore));
    const tx = { id: 't'.repeat(43) };
    await second.execute(
      { type: 'MarkPrepared', data: { planId, txId: tx.id, reward: '5', anchor: 'a', anchorHeight: 1_000, dataRoot: 'r', dataSize: 1_096, tx, now: 3 } },
      { correlationId: 'second' },
    );

    pausedDrop.gate.open();
    let refused: unknown;
    await drop.catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(LeaseLost);
    expect((await streamEvents(node, bundleStream(planId))).map((e) => [e.type, (e.data as { fence?: number }).fence])).to.deep.equal([
      ['BundlePlanned', 0],
      ['BundlePrepared', 1],
    ]);
    expect(await new BundleRepository(eventStore).read(planId)).to.include({ status: 'prepared', txId: tx.id, fence: 1 });
  });

  it("records an item's failure or damage only under the current holder's fencing token", async () => {
    const [exhausted, damaged] = await uploadItems(node.service, [1_000, 2_000]);
    const { eventStore } = node.service;
    // the exhausted item's one bundle was dropped: with one attempt allowed it is out of attempts
    const earlier = new BundleRepository(eventStore);
    const meta = { correlationId: 'earlier' };
    await earlier.execute(
      { type: 'Plan', data: { planId: 'plan-dropped', items: [{ id: exhausted!.id, size: 1_000, offset: 96 }], headerSize: 96, totalSize: 1_096, now: 1 } },
      meta,
    );
    const { position } = await earlier.execute({ type: 'Drop', data: { planId: 'plan-dropped', reason: 'lost', now: 2 } }, meta);
    await node.service.projections.waitFor(position!, 10_000);
    const damagedPlan = await earlier.execute(
      { type: 'Plan', data: { planId: 'plan-damaged', items: [{ id: damaged!.id, size: 2_000, offset: 96 }], headerSize: 96, totalSize: 2_096, now: 3 } },
      meta,
    );

    const firstFence = new LeaseFence(eventStore, 'first', Date.now);
    expect(await firstFence.take()).to.equal(true);
    const secondFence = new LeaseFence(eventStore, 'second', Date.now);
    expect(await secondFence.take()).to.equal(true);
    const settings = { ...node.deps.settings, maxAttempts: 1 };
    const types = async (id: string) => (await streamEvents(node, dataItemStream(id as DataItemId))).map((e) => e.type);
    const finding = [{ id: damaged!.id, blobKey: `items/${damaged!.id}`, found: 'missing' as const }];
    const record = async () => {};

    // the first was succeeded: it records neither
    const first = { ...node.deps, settings, fence: firstFence };
    let refusals = 0;
    await failExhaustedItems(first, [exhausted!.id]).catch((error: unknown) => (refusals += error instanceof LeaseLost ? 1 : 0));
    await dropForDamage(first, damagedPlan.state!, finding, record).catch((error: unknown) => (refusals += error instanceof LeaseLost ? 1 : 0));
    expect(refusals).to.equal(2);
    expect(await types(exhausted!.id)).to.deep.equal(['DataItemAccepted']);
    expect(await types(damaged!.id)).to.deep.equal(['DataItemAccepted']);

    // the holder does
    const second = { ...node.deps, settings, fence: secondFence };
    expect(await failExhaustedItems(second, [exhausted!.id])).to.equal(1);
    await dropForDamage(second, damagedPlan.state!, finding, record);
    expect(await types(exhausted!.id)).to.deep.equal(['DataItemAccepted', 'DataItemFailed']);
    expect(await types(damaged!.id)).to.deep.equal(['DataItemAccepted', 'DataItemDamaged']);
    // and only once
    expect(await failExhaustedItems(second, [exhausted!.id])).to.equal(0);
  });
});
