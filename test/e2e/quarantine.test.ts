import { expect } from 'chai';
import { Bundle } from 'arbundles';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { createQuarantine } from '../../src/app/quarantine.js';
import { BundleRepository } from '../../src/app/bundles.js';
import { ItemAlreadyPosted } from '../../src/domain/errors.js';
import { planBundles } from '../../src/app/bundler/plan.js';
import { BUNDLER } from '../../src/app/bundler/deps.js';
import { bundleLayout } from '../../src/bundling/index.js';
import { newPlanId } from '../../src/domain/bundle/ids.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import type { RunningService } from '../../src/service.js';
import { itemHistoryProjection, collectionOf, type ItemHistoryDocument } from '../../projections/index.js';
import { runScript } from '../support/runScript.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { twoLevels } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import {
  BLOCKS_TO_PERMANENT,
  bundleEvents,
  bundleState,
  bundlerNodesOnArlocal,
  ofType,
  plansOf,
  statusOf,
  uploadItems,
  type BundlerNode,
} from '../bundler/harness.js';

const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
const LEGAL = 'Unavailable For Legal Reasons';

/**
 * An operator's hold (quarantine) end to end, arlocal as the gateway: a held item and the items nested
 * in it are in no bundle posted while it is held (each posted bundle's header read back from arlocal
 * with arbundles), answer 451 on every read, and are bundled and served once released; a hold of a
 * planned bundle's item drops that plan; a hold of an item already posted is refused; who and why are
 * in the item's history, and a rebuild of the read models keeps the holds.
 */
describe('quarantine (arlocal)', function () {
  this.timeout(180_000);
  const suite = bundlerNodesOnArlocal(100_000);

  async function start(): Promise<BundlerNode> {
    const node = await suite.start({ env: { ADMIN_TOKEN }, timeoutMs: 20_000 });
    await suite.arlocal.mint(node.service.walletAddress, '100000000000000000');
    return node;
  }

  const admin = (service: RunningService, method: 'PUT' | 'DELETE', id: string, by: string, reason: string) =>
    fetch(`${service.url}/admin/items/${id}/quarantine`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ by, reason }),
    });

  /** every item id in the headers of every bundle posted so far, as arlocal serves the bundles */
  async function postedIds(service: RunningService): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const posted of ofType(await bundleEvents(service), 'BundlePosted')) {
      for (const id of new Bundle(await suite.arlocal.data(posted.data.txId)).getIds()) ids.add(id);
    }
    return ids;
  }

  /** passes and mining until `id` is FINALIZED */
  async function untilPermanent(node: BundlerNode, id: string): Promise<void> {
    await node.passUntil(async () => {
      await suite.arlocal.mine(BLOCKS_TO_PERMANENT);
      return (await statusOf(node.service, id)).status === 'FINALIZED';
    }, `${id} FINALIZED`);
  }

  async function expectHeld(service: RunningService, id: string): Promise<void> {
    for (const [path, init] of [
      [`/${id}`, {}],
      [`/tx/${id}/data`, {}],
      [`/tx/${id}`, {}],
      [`/${id}`, { method: 'HEAD' }],
      [`/${id}`, { headers: { range: 'bytes=0-0' } }],
    ] as const) {
      const res = await fetch(`${service.url}${path}`, init);
      expect(res.status, `${init && 'method' in init ? 'HEAD ' : ''}${path}`).to.equal(451);
      expect(res.statusText).to.equal(LEGAL);
      if (!('method' in init)) expect(await res.text()).to.equal(LEGAL);
    }
  }

  it('keeps a held item and its nested items out of every bundle posted and out of reads (451) until released', async () => {
    const node = await start();
    const { service } = node;
    const nested = await twoLevels();
    const [plain, other] = await uploadItems(service, [3_000, 4_000]);
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(nested.root.getRaw()) })).status).to.equal(200);
    await nestedIndexed(service, nested.root.id);

    // one through the admin API, the root of the nested items through the CLI on the running service's directory
    const res = await admin(service, 'PUT', plain!.id, 'alice', 'legal notice 2026-11-29');
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.include({ id: plain!.id, held: true });
    const cli = await runScript('quarantine', [nested.root.id, '--reason', 'spam bundle', '--by', 'bob'], { DATA_DIR: node.dataDir });
    expect(cli.code, cli.stderr).to.equal(0);
    expect(cli.stdout).to.equal(`held ${nested.root.id}: in no bundle and not served (451) until released\n`);
    await service.projections.waitFor(await service.eventStore.headPosition(), 30_000);

    const nestedIds = nested.expected.map((e) => e.id);
    for (const id of [plain!.id, nested.root.id, ...nestedIds]) await expectHeld(service, id);
    expect(await (await fetch(`${service.url}/tx/${plain!.id}/status`)).json()).to.include({ status: 'CONFIRMED', info: 'new', quarantined: true });
    // the other item is bundled and made permanent; the held ones are in none of the bundles posted meanwhile
    await untilPermanent(node, other!.id);
    const posted = await postedIds(service);
    expect(posted.has(other!.id)).to.equal(true);
    for (const id of [plain!.id, nested.root.id]) expect(posted.has(id), id).to.equal(false);
    expect(await plansOf(service, plain!.id)).to.deep.equal([]);
    expect(await statusOf(service, plain!.id)).to.deep.equal({ status: 'CONFIRMED', info: 'new' });

    // released: bundled, posted, made permanent, and served byte for byte, the nested items too
    expect(await (await admin(service, 'DELETE', plain!.id, 'alice', 'notice withdrawn')).json()).to.deep.equal({ id: plain!.id, released: true });
    const release = await runScript('quarantine', ['release', nested.root.id, '--reason', 'reviewed: not spam', '--by', 'bob'], { DATA_DIR: node.dataDir });
    expect(release.code, release.stderr).to.equal(0);
    await service.projections.waitFor(await service.eventStore.headPosition(), 30_000);
    await untilPermanent(node, plain!.id);
    await untilPermanent(node, nested.root.id);
    const after = await postedIds(service);
    for (const id of [plain!.id, nested.root.id]) expect(after.has(id), id).to.equal(true);
    const served = await fetch(`${service.url}/${plain!.id}`);
    expect(served.status).to.equal(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(plain!.rawData)).to.equal(true);
    const inner = await fetch(`${service.url}/${nested.inner1.id}`);
    expect(inner.status).to.equal(200);
    expect(await inner.text()).to.equal('deepest text');

    // who and why, in the item's history (read model and CLI)
    const history = (await service.readStore.get<ItemHistoryDocument>(collectionOf(itemHistoryProjection), plain!.id))?.doc;
    const summaries = history!.entries.map((e) => e.summary);
    expect(summaries).to.include('quarantined by alice: legal notice 2026-11-29; held out of bundles and reads (451) until released');
    expect(summaries).to.include('released from quarantine by alice: notice withdrawn; back in the bundle queue');
    const lines = await runScript('history', [nested.root.id], { DATA_DIR: node.dataDir });
    expect(lines.stdout).to.include('quarantined by bob: spam bundle');
    expect(lines.stdout).to.include('released from quarantine by bob: reviewed: not spam');
    // the audit finds nothing: no held item was signed into a bundle, the nested index and every blob hold
    const findings: Finding[] = [];
    await runAudit({ eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, now: Date.now }, (f) => findings.push(f));
    expect(findings).to.deep.equal([]);
  });

  it('drops a bundle planned with the item and not yet signed, and plans the others again without it', async () => {
    const node = await start();
    const { service } = node;
    const [held, kept] = await uploadItems(service, [3_000, 5_000]);
    const [planId] = await planBundles(node.deps);
    expect((await bundleState(service, planId!))?.items.map((i) => i.id)).to.have.members([held!.id, kept!.id]);

    const res = await admin(service, 'PUT', held!.id, 'carol', 'malware');
    expect(await res.json()).to.deep.include({ id: held!.id, held: true, droppedPlan: planId });
    const dropped = ofType(await bundleEvents(service), 'BundleDropped').find((e) => e.data.planId === planId);
    expect(dropped?.data).to.deep.include({ countsAsAttempt: false, reason: `item ${held!.id} quarantined by carol: planned again without it` });

    await untilPermanent(node, kept!.id);
    expect(await plansOf(service, kept!.id)).to.have.length(2);
    expect(await plansOf(service, held!.id)).to.deep.equal([planId]);
    expect((await postedIds(service)).has(held!.id)).to.equal(false);
  });

  it('drops, before signing it, a bundle planned with a held item from a queue that had not seen the hold', async () => {
    const node = await start();
    const { service } = node;
    const [held, kept] = await uploadItems(service, [3_000, 4_000]);
    expect((await admin(service, 'PUT', held!.id, 'frank', 'abuse report')).status).to.equal(200);
    // a planner reading a read model behind the hold: the plan is made with the held item all the same
    const layout = bundleLayout([held!, kept!].map((i) => ({ id: i.id, size: i.getRaw().length })));
    const planId = newPlanId();
    await node.deps.bundles.execute(
      {
        type: 'Plan',
        data: {
          planId,
          items: layout.items.map(({ id, size, offset }) => ({ id, size, offset })),
          headerSize: layout.headerSize,
          totalSize: layout.totalSize,
          now: Date.now(),
        },
      },
      BUNDLER,
    );
    await node.pass();
    const dropped = ofType(await bundleEvents(service), 'BundleDropped').find((e) => e.data.planId === planId);
    expect(dropped?.data).to.deep.include({ countsAsAttempt: false, reason: `quarantined before it was signed: ${held!.id}` });
    expect(ofType(await bundleEvents(service), 'BundlePrepared').some((e) => e.data.planId === planId)).to.equal(false);
    await untilPermanent(node, kept!.id);
    expect((await postedIds(service)).has(held!.id)).to.equal(false);
  });

  it('answers 409 and records the hold lifted when the bundle is signed while the hold is being recorded', async () => {
    const node = await start();
    const { service } = node;
    const [item] = await uploadItems(service, [3_000]);
    const [planId] = await planBundles(node.deps);
    // the bundler signs between the hold's append and its look at the plan (it read the item's stream before the hold)
    const signWhileHolding = async (position: bigint) => {
      await service.projections.waitFor(position, 30_000);
      const data = { planId: planId!, txId: 'T'.repeat(43), reward: '1', anchor: 'a', anchorHeight: 1, dataRoot: 'r', dataSize: 1, tx: {}, now: Date.now() };
      await node.deps.bundles.execute({ type: 'MarkPrepared', data }, BUNDLER);
    };
    const quarantine = createQuarantine({
      items: service.items,
      bundles: new BundleRepository(service.eventStore),
      readStore: service.readStore,
      now: Date.now,
      awaitProjection: signWhileHolding,
    });
    let refused: unknown;
    await quarantine.hold({ id: item!.id, by: 'gina', reason: 'late notice' }, { correlationId: 'spec' }).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(ItemAlreadyPosted);
    const events = [];
    for await (const e of service.eventStore.readStream(dataItemStream(item!.id as DataItemId))) events.push({ type: e.type, data: e.data });
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemQuarantined', 'DataItemReleased']);
    expect(events[2]!.data).to.deep.include({ by: 'gina', refused: { planId, txId: 'T'.repeat(43) } });
    await service.projections.waitFor(await service.eventStore.headPosition(), 30_000);
    expect((await fetch(`${service.url}/${item!.id}`)).status).to.equal(200);
    const findings: Finding[] = [];
    await runAudit({ eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, now: Date.now }, (f) => findings.push(f));
    expect(findings.filter((f) => f.kind === 'held-item-signed')).to.deep.equal([]);
  });

  it('refuses to hold an item already posted (409), records nothing, and refuses a nested item alone', async () => {
    const node = await start();
    const { service } = node;
    const nested = await twoLevels();
    const [item] = await uploadItems(service, [3_000]);
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(nested.root.getRaw()) })).status).to.equal(200);
    await nestedIndexed(service, nested.root.id);
    await node.passUntil(async () => (await statusOf(service, item!.id)).bundleId !== undefined, 'signed');

    const res = await admin(service, 'PUT', item!.id, 'dave', 'too late');
    expect([res.status, res.statusText, await res.text()]).to.deep.equal([
      409,
      'Data item already posted: it is on Arweave',
      'Data item already posted: it is on Arweave',
    ]);
    const types: string[] = [];
    for await (const e of service.eventStore.readStream(dataItemStream(item!.id as DataItemId))) types.push(e.type);
    expect(types).to.not.include('DataItemQuarantined');
    expect((await fetch(`${service.url}/${item!.id}`)).status).to.equal(200);

    const cli = await runScript('quarantine', [nested.first.id, '--reason', 'spam', '--by', 'dave'], { DATA_DIR: node.dataDir });
    expect(cli.code).to.equal(1);
    expect(cli.stderr).to.equal(
      `error: Data item is nested in another: hold its root item: ${nested.first.id} is nested in ${nested.root.id}: its bytes are that item's; hold ${nested.root.id}\n`,
    );
  });

  it('keeps the holds through a rebuild of the read models', async () => {
    const node = await start();
    const { service } = node;
    const [item] = await uploadItems(service, [3_000]);
    expect((await admin(service, 'PUT', item!.id, 'erin', 'court order')).status).to.equal(200);
    const rebuilt = await runScript('rebuild', ['tx-status', 'bundle-queue'], { DATA_DIR: node.dataDir });
    expect(rebuilt.code, rebuilt.stderr).to.equal(0);
    await service.projections.waitFor(await service.eventStore.headPosition(), 30_000);
    await expectHeld(service, item!.id);
    expect(await (await fetch(`${service.url}/tx/${item!.id}/status`)).json()).to.include({ quarantined: true });
    await node.pass();
    expect(await plansOf(service, item!.id)).to.deep.equal([]);
  });
});
