import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import type { Arlocal } from '../support/arlocal.js';
import type { FaultyGateway } from '../support/faultyGateway.js';
import {
  BLOCKS_TO_PERMANENT,
  bundleEvents,
  bundleState,
  expectOffsetsInBundle,
  liveBundleIds,
  ofType,
  plansOf,
  bundlerNodesOnArlocal,
  statusesOf,
  uploadItems,
  type BundlerNode,
  type NodeOptions,
} from '../bundler/harness.js';
import { eventually } from '../support/eventually.js';

interface Case {
  /** the step recorded last when the first process stops */
  stoppedAfter: string;
  /** what stops the first process there: a fault on the next step's route, or a crash before a record */
  setup: (gateway: FaultyGateway, arlocal: Arlocal) => void;
  crashBefore?: NodeOptions['crashBefore'];
  /** extra work on the first process (mining) after its pass */
  then?: (node: BundlerNode, arlocal: Arlocal) => Promise<void>;
  /** the bundle's status when the first process stops */
  status: string;
  /** how many times its transaction is posted in all (the same one; default 1) */
  posts?: number;
}

const cases: Case[] = [
  { stoppedAfter: 'planned (price and anchor refused)', setup: (g) => g.set(['price', 'anchor', 'info'], 'refuse'), status: 'planned' },
  { stoppedAfter: 'planned (a transaction signed, the process gone before recording it)', setup: () => {}, crashBefore: 'MarkPrepared', status: 'planned' },
  { stoppedAfter: 'prepared (POST /tx refused)', setup: (g) => g.set('tx', 'refuse'), status: 'prepared', posts: 2 },
  { stoppedAfter: 'prepared (POST /tx taken, the process gone before recording it)', setup: () => {}, crashBefore: 'MarkPosted', status: 'prepared', posts: 2 },
  { stoppedAfter: 'posted (every chunk refused)', setup: (g) => g.set('chunk', 'refuse'), status: 'posted' },
  { stoppedAfter: 'posted (the first chunk taken, the second failing)', setup: (g) => g.set('chunk', 'error', { after: 1 }), status: 'posted' },
  { stoppedAfter: 'posted (every chunk taken, the process gone before recording it)', setup: () => {}, crashBefore: 'MarkSeeded', status: 'posted' },
  { stoppedAfter: 'seeded', setup: () => {}, status: 'seeded' },
  {
    stoppedAfter: 'confirmed',
    setup: () => {},
    then: async (node, arlocal) => {
      await arlocal.mine(1);
      await node.pass();
    },
    status: 'confirmed',
  },
];

/**
 * A bundler process stopped after any recorded step (or between a gateway call and its record),
 * then started again on the same data directory: it takes the same plan on with the same signed
 * transaction (posting that one again is fine, another is not), and loses no item.
 */
describe('bundler restarts (arlocal behind a faulty proxy)', function () {
  this.timeout(60_000);
  const suite = bundlerNodesOnArlocal(100_000);

  const start = (options: Partial<NodeOptions> = {}) => suite.start(options);

  /** After the restart: passes and mining take the one plan to permanence under its one transaction. */
  async function expectFinishedOnce(node: BundlerNode, items: readonly DataItem[], posts = 1): Promise<void> {
    const { service } = node;
    await node.pass();
    await suite.arlocal.mine(BLOCKS_TO_PERMANENT);
    const plans = await Promise.all(items.map((i) => plansOf(service, i.id)));
    expect(new Set(plans.flat()).size, 'plans holding the items').to.equal(1);
    const planId = plans[0]![0]!;
    await node.passUntil(async () => (await bundleState(service, planId))?.status === 'permanent', `bundle ${planId} permanent`);
    const events = await bundleEvents(service);
    const prepared = ofType(events, 'BundlePrepared').filter((e) => e.data.planId === planId);
    expect(prepared, 'BundlePrepared of the plan').to.have.length(1);
    const txId = prepared[0]!.data.txId;
    // every POST /tx the gateway ever saw carried that transaction
    expect(suite.gateway.txPosts()).to.deep.equal(new Map([[txId, posts]]));
    // and arlocal got each of its two chunks once (a chunk sent again was one it had: answered, not forwarded)
    const forwarded = suite.gateway.seen.filter((r) => r.route === 'chunk' && r.forwarded).map((r) => r.chunk);
    expect(forwarded).to.have.length(2);
    expect(new Set(forwarded).size).to.equal(2);
    expect(ofType(events, 'BundleDropped')).to.deep.equal([]);
    expect((await bundleState(service, planId))?.status).to.equal('permanent');
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'FINALIZED', info: 'permanent', bundleId: txId });
    expect(await liveBundleIds(service)).to.deep.equal([]);
    await expectOffsetsInBundle(service, suite.arlocal, items, txId);
  }

  for (const c of cases) {
    it(`resumes a bundle stopped after ${c.stoppedAfter}, with one transaction and every item FINALIZED`, async () => {
      const first = await start(c.crashBefore ? { crashBefore: c.crashBefore } : {});
      await suite.arlocal.mint(first.service.walletAddress, '100000000000000000');
      // 300 kB + 2 small: two chunks
      const items = await uploadItems(first.service, [300_000, 2_000, 5_000]);
      c.setup(suite.gateway, suite.arlocal);
      await first.pass();
      await c.then?.(first, suite.arlocal);
      const [planId] = await plansOf(first.service, items[0]!.id);
      expect((await bundleState(first.service, planId!))?.status).to.equal(c.status);
      await first.stop();

      suite.gateway.heal();
      const second = await start({ dataDir: first.dataDir });
      await expectFinishedOnce(second, items, c.posts);
    });
  }

  it('stops during a chunk upload without waiting for the gateway, and the next process finishes the bundle', async () => {
    // the gateway would take 100 s to answer, and the bundler would wait 120 s for it
    const first = await start({ timeoutMs: 120_000 });
    await suite.arlocal.mint(first.service.walletAddress, '100000000000000000');
    const items = await uploadItems(first.service, [300_000, 2_000]);
    suite.gateway.set('chunk', 'slow');
    const pass = first.pass();
    await eventually(() => suite.gateway.seen.some((r) => r.route === 'chunk'), Boolean, 'a chunk posted');
    await first.stop();
    await pass;

    suite.gateway.heal();
    const second = await start({ dataDir: first.dataDir });
    const [planId] = await plansOf(second.service, items[0]!.id);
    expect((await bundleState(second.service, planId!))?.status).to.equal('posted');
    await expectFinishedOnce(second, items);
  });
});
