import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import type { DataItem } from 'arbundles';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { fromRecorded, type DomainEvent } from '../../src/domain/events.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { history } from '../../src/history/history.js';
import type { RunningService } from '../../src/service.js';
import { asBody } from '../support/items.js';
import { damageStoredBlob, loseStoredBlob, storedBlob } from '../support/storedBlob.js';
import {
  BLOCKS_TO_PERMANENT,
  bundleEvents,
  bundleState,
  expectOffsetsInBundle,
  liveBundleIds,
  ofType,
  plansOf,
  queued,
  bundlerNodesOnArlocal,
  statusOf,
  statusesOf,
  uploadItems,
  type BundlerNode,
  type NodeOptions,
} from '../bundler/harness.js';

const DAMAGED = { status: 'FAILED', info: 'damaged' };

/**
 * Items whose stored bytes stop being the ones they were accepted with (a byte flipped in the blob
 * file, the file deleted) after their receipt: the bundler finds them, records them damaged, drops
 * the bundle (no attempt counted for the others) and takes every other item to FINALIZED without
 * them. The damaged items are never in a posted bundle, are shown FAILED/damaged, are reported by
 * the audit, and a new upload of the same item repairs one. Against arlocal, behind a faulty proxy
 * where a step must be stopped halfway.
 */
describe('items whose stored bytes were damaged after their receipt (arlocal)', function () {
  this.timeout(90_000);
  const suite = bundlerNodesOnArlocal(100_000);

  /**
   * A bundler node; a drop counted as an attempt would fail every item at once. No fault here is a
   * slow answer: a generous gateway time limit keeps a busy machine's slow arlocal from failing a step.
   */
  async function start(options: Partial<NodeOptions> = {}): Promise<BundlerNode> {
    const node = await suite.start({ env: { MAX_BUNDLE_ATTEMPTS: '1' }, timeoutMs: 20_000, ...options });
    await suite.arlocal.mint(node.service.walletAddress, '100000000000000000');
    return node;
  }

  /** flips one bit of the item's last byte (its payload), where the embedded blob store keeps it (a row or a file) */
  async function flipLastByte(node: BundlerNode, item: DataItem): Promise<string> {
    let changed!: Buffer;
    await damageStoredBlob(node.dataDir, `items/${item.id}`, (bytes) => {
      bytes[bytes.length - 1]! ^= 0x01;
      return (changed = bytes);
    });
    return createHash('sha256').update(changed).digest('hex');
  }

  async function itemEvents(service: RunningService, item: DataItem): Promise<DomainEvent[]> {
    const events: DomainEvent[] = [];
    for await (const recorded of service.eventStore.readStream(dataItemStream(item.id as DataItemId))) events.push(fromRecorded(recorded)!);
    return events;
  }

  /** the ids in the header of the bundle transaction as arlocal serves its data */
  async function idsInBundle(txId: string): Promise<string[]> {
    const data = await suite.arlocal.data(txId);
    const count = data.readUInt32LE(0);
    return Array.from({ length: count }, (_, i) => data.subarray(64 + 64 * i, 96 + 64 * i).toString('base64url'));
  }

  async function auditFindings(node: BundlerNode): Promise<{ kind: string; id: string }[]> {
    const findings: Finding[] = [];
    const { eventStore, readStore, blobStore } = node.service;
    await runAudit({ eventStore, readStore, blobStore, now: Date.now }, (f) => findings.push(f));
    return sorted(findings.map(({ kind, id }) => ({ kind, id })));
  }
  const sorted = (findings: { kind: string; id: string }[]) => findings.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));

  /** passes and mining until the one live bundle is permanent; its transaction id */
  async function toPermanent(node: BundlerNode): Promise<string> {
    await node.pass();
    const [planId] = await liveBundleIds(node.service);
    expect((await bundleState(node.service, planId!))?.status, node.logs.at(-1)).to.equal('seeded');
    await suite.arlocal.mine(BLOCKS_TO_PERMANENT);
    await node.pass();
    const bundle = await bundleState(node.service, planId!);
    expect(bundle?.status).to.equal('permanent');
    return bundle!.txId!;
  }

  it('finds a changed and a lost blob at preparation: flags both, drops the bundle unsigned, and posts the others without them', async () => {
    const node = await start();
    const { service } = node;
    // 300 kB + 3 small items: two chunks
    const items = await uploadItems(service, [300_000, 2_000, 5_000, 3_000]);
    const [big, changed, good, lost] = items as [DataItem, DataItem, DataItem, DataItem];
    const changedSha256 = await flipLastByte(node, changed);
    await loseStoredBlob(node.dataDir, `items/${lost.id}`);

    await node.pass();
    const events = await bundleEvents(service);
    const [firstPlan] = ofType(events, 'BundlePlanned');
    // items are planned oldest first: each was accepted a request after the other, but the order is the plan's to say
    const planOrder = firstPlan!.data.items.map((i) => i.id);
    expect([...planOrder].sort()).to.deep.equal(items.map((i) => i.id).sort());
    const [first, second] = [changed, lost].sort((a, b) => planOrder.indexOf(a.id) - planOrder.indexOf(b.id)) as [DataItem, DataItem];
    const foundIn = (item: DataItem) => (item === changed ? 'digest' : 'missing');
    // never signed: a transaction whose data cannot be posted is never made
    expect(ofType(events, 'BundlePrepared')).to.deep.equal([]);
    const [dropped] = ofType(events, 'BundleDropped');
    expect(dropped, `a BundleDropped (${node.logs.at(-1)})`).to.not.equal(undefined);
    expect(dropped!.data).to.deep.include({
      planId: firstPlan!.data.planId,
      damagedItemIds: [first.id, second.id],
      reason: `stored bytes of 2 items no longer match their acceptance: ${first.id} (${foundIn(first)}), ${second.id} (${foundIn(second)})`,
    });
    const waiting = { status: 'CONFIRMED', info: 'new' };
    expect(await statusesOf(service, items)).to.deep.equal([waiting, DAMAGED, waiting, DAMAGED]);
    // damaged bytes are not served back (CONTRACT.md section 7); the good items' are
    for (const [item, status] of [
      [changed, 404],
      [lost, 404],
      [good, 200],
    ] as const) {
      const read = await fetch(`${service.url}/${item.id}`);
      expect(read.status, item.id).to.equal(status);
      await read.arrayBuffer();
    }
    // the drop was no attempt of the good items (MAX_BUNDLE_ATTEMPTS is 1: they would have failed)
    for (const item of [big, good]) expect((await queued(service, item.id))?.attempts).to.equal(0);
    for (const item of [changed, lost]) expect(await queued(service, item.id)).to.include({ attempts: 0, damaged: true });

    const [, changedDamage] = await itemEvents(service, changed);
    expect(changedDamage).to.deep.equal({
      type: 'DataItemDamaged',
      data: {
        id: changed.id,
        blobKey: `items/${changed.id}`,
        found: 'digest',
        size: changed.getRaw().length,
        sha256: changedSha256,
        planId: firstPlan!.data.planId,
        timestamp: (changedDamage as { data: { timestamp: number } }).data.timestamp,
      },
    });
    expect((await itemEvents(service, lost))[1]).to.deep.include({ type: 'DataItemDamaged' });
    expect((await itemEvents(service, lost))[1]!.data).to.include({ found: 'missing', blobKey: `items/${lost.id}` });

    const txId = await toPermanent(node);
    expect((await idsInBundle(txId)).sort()).to.deep.equal([big.id, good.id].sort());
    await expectOffsetsInBundle(service, suite.arlocal, [big, good], txId);
    for (const item of [big, good]) expect(await statusOf(service, item.id)).to.deep.equal({ status: 'FINALIZED', info: 'permanent', bundleId: txId });
    for (const item of [changed, lost]) {
      expect(await statusOf(service, item.id)).to.deep.equal(DAMAGED);
      expect(await plansOf(service, item.id)).to.deep.equal([firstPlan!.data.planId]);
      expect((await fetch(`${service.url}/tx/${item.id}/offsets`)).status).to.equal(404);
    }
    // every bundle the network got: the one without them
    expect([...suite.gateway.txPosts().keys()]).to.deep.equal([txId]);

    expect(await auditFindings(node)).to.deep.equal(
      sorted([
        { kind: 'blob-digest', id: changed.id },
        { kind: 'blob-missing', id: lost.id },
        { kind: 'item-damaged', id: changed.id },
        { kind: 'item-damaged', id: lost.id },
        { kind: 'item-signature', id: changed.id },
      ]),
    );

    // an operator sees it: the status page's count, the item page, /metrics, the item's history
    const summary = await (await fetch(`${service.url}/dashboard/api/summary`)).json();
    expect(summary.uploads.damagedItems).to.equal(2);
    const page = await (await fetch(`${service.url}/dashboard/api/tx/${changed.id}`)).json();
    expect(page.status).to.deep.equal(DAMAGED);
    expect(page.timeline.map((e: { type: string }) => e.type)).to.deep.equal(['DataItemAccepted', 'BundlePlanned', 'DataItemDamaged', 'BundleDropped']);
    expect(page.timeline[2].summary).to.equal(
      `stored bytes changed: blob items/${changed.id} has sha256 ${changedSha256}, not the accepted one: left the bundle queue; it is never posted until the same item is uploaded again`,
    );
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).to.match(/^data_items_damaged 2$/m);
    const lines: string[] = [];
    for await (const line of history({ eventStore: service.eventStore, readStore: service.readStore }, lost.id)) lines.push(line);
    expect(lines.join('')).to.include(
      `DataItemDamaged  ${' '.repeat(8)}stored bytes lost: no blob at items/${lost.id} (found in bundle ${firstPlan!.data.planId})`,
    );
    expect(lines.join('')).to.include('now: FAILED (damaged), in no bundle');
  });

  for (const stop of [
    { after: 'prepared', route: 'tx' as const },
    { after: 'posted', route: 'chunk' as const },
  ]) {
    it(`finds a blob changed after preparation when a restarted bundler resumes a bundle stopped ${stop.after}, and never posts it`, async () => {
      const first = await start();
      const items = await uploadItems(first.service, [300_000, 2_000, 5_000]);
      suite.gateway.set(stop.route, 'refuse');
      await first.pass();
      const [planId] = await plansOf(first.service, items[0]!.id);
      const prepared = await bundleState(first.service, planId!);
      expect(prepared?.status).to.equal(stop.after);
      await first.stop();
      await flipLastByte(first, items[1]!);
      suite.gateway.heal();
      const headersBefore = suite.gateway.txPosts().get(prepared!.txId!) ?? 0;

      const second = await start({ dataDir: first.dataDir });
      await second.pass();
      expect((await bundleState(second.service, planId!))?.status, second.logs.join('\n')).to.equal('dropped');
      // a header whose data can no longer follow is not posted again
      expect(suite.gateway.txPosts().get(prepared!.txId!) ?? 0).to.equal(headersBefore);
      expect(await statusOf(second.service, items[1]!.id)).to.deep.equal(DAMAGED);

      const txId = await toPermanent(second);
      expect((await idsInBundle(txId)).sort()).to.deep.equal([items[0]!.id, items[2]!.id].sort());
      expect(await statusesOf(second.service, items)).to.deep.equal([
        { status: 'FINALIZED', info: 'permanent', bundleId: txId },
        DAMAGED,
        { status: 'FINALIZED', info: 'permanent', bundleId: txId },
      ]);
      expect((await auditFindings(second)).filter((f) => f.kind === 'item-damaged')).to.deep.equal([{ kind: 'item-damaged', id: items[1]!.id }]);
    });
  }

  it('finds a blob changed while its bundle is being posted: the chunk that no longer matches stops it, the bundle is dropped', async () => {
    const node = await start();
    const items = await uploadItems(node.service, [300_000, 2_000, 5_000]);
    // the first chunk goes up, the second (the small items) fails
    suite.gateway.set('chunk', 'error', { after: 1 });
    await node.pass();
    const [planId] = await plansOf(node.service, items[0]!.id);
    const bundle = await bundleState(node.service, planId!);
    expect(bundle?.status).to.equal('posted');
    // the plan's last item: its last byte is in the last chunk, not posted yet
    const changed = items.find((i) => i.id === bundle!.items.at(-1)!.id)!;
    await flipLastByte(node, changed);
    suite.gateway.heal();

    await node.pass();
    expect((await bundleState(node.service, planId!))?.status, node.logs.join('\n')).to.equal('dropped');
    expect(ofType(await bundleEvents(node.service), 'BundleDropped')[0]!.data.damagedItemIds).to.deep.equal([changed.id]);
    const txId = await toPermanent(node);
    const others = items.filter((i) => i !== changed);
    expect((await idsInBundle(txId)).sort()).to.deep.equal(others.map((i) => i.id).sort());
    expect(await statusOf(node.service, changed.id)).to.deep.equal(DAMAGED);
  });

  it('drops, as a failed attempt, a prepared bundle whose intact blobs no longer give the data root it was signed with', async () => {
    const first = await start({ env: { MAX_BUNDLE_ATTEMPTS: '2' } });
    const items = await uploadItems(first.service, [2_000, 3_000]);
    suite.gateway.set('tx', 'refuse');
    await first.pass();
    const [planId] = await plansOf(first.service, items[0]!.id);
    const prepared = await bundleState(first.service, planId!);
    expect(prepared?.status).to.equal('prepared');
    await first.stop();
    // the recorded root edited (no blob changed): the signed transaction can never get its data
    const otherRoot = Buffer.alloc(32, 7).toString('base64url');
    const db = new Database(join(first.dataDir, 'events.db'));
    try {
      const row = db.prepare("SELECT position, data FROM events WHERE type = 'BundlePrepared'").get() as { position: bigint; data: string };
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ ...JSON.parse(row.data), dataRoot: otherRoot }), row.position);
    } finally {
      db.close();
    }
    suite.gateway.heal();

    const second = await start({ dataDir: first.dataDir, env: { MAX_BUNDLE_ATTEMPTS: '2' } });
    await second.pass();
    const [dropped] = ofType(await bundleEvents(second.service), 'BundleDropped');
    expect(dropped?.data.reason, second.logs.join('\n')).to.equal(
      `its blobs, all as accepted, give data root ${prepared!.dataRoot}, not the ${otherRoot} it was signed with`,
    );
    expect(dropped?.data.damagedItemIds).to.equal(undefined);
    for (const item of items) expect((await queued(second.service, item.id))?.attempts).to.equal(1);
    const txId = await toPermanent(second);
    expect(await statusesOf(second.service, items)).to.deep.equal(items.map(() => ({ status: 'FINALIZED', info: 'permanent', bundleId: txId })));
  });

  it('repairs a damaged item when the same item is uploaded again: 202 with its receipt, then bundled and FINALIZED', async () => {
    const node = await start();
    const { service } = node;
    const items = await uploadItems(service, [2_000, 3_000]);
    const [changed, good] = items as [DataItem, DataItem];
    const receipt = await (await fetch(`${service.url}/tx/${changed.id}/status`)).json();
    await flipLastByte(node, changed);
    await node.pass();
    expect(await statusOf(service, changed.id)).to.deep.equal(DAMAGED);

    const again = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(changed.getRaw()) });
    expect({ status: again.status, statusText: again.statusText }).to.deep.equal({ status: 202, statusText: 'Data Item Exists' });
    const { id } = await again.json();
    expect(id).to.equal(changed.id);
    expect(receipt.winc).to.equal('0');
    expect(await statusOf(service, changed.id)).to.deep.equal({ status: 'CONFIRMED', info: 'new' });
    expect((await storedBlob(node.dataDir, `items/${changed.id}`))?.equals(Buffer.from(changed.getRaw()))).to.equal(true);
    expect((await itemEvents(service, changed)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemDamaged', 'DataItemRepaired']);

    const txId = await toPermanent(node);
    expect((await idsInBundle(txId)).sort()).to.deep.equal([changed.id, good.id].sort());
    await expectOffsetsInBundle(service, suite.arlocal, [changed, good], txId);
    expect(await auditFindings(node)).to.deep.equal([]);
    const summary = await (await fetch(`${service.url}/dashboard/api/summary`)).json();
    expect(summary.uploads.damagedItems).to.equal(0);
  });
});
