import { expect } from 'chai';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { itemHistoryProjection, collectionOf, type ItemHistoryDocument } from '../../projections/index.js';
import { runScript } from '../support/runScript.js';
import {
  BLOCKS_TO_PERMANENT,
  bundleState,
  bundlerNodesOnArlocal,
  liveBundleIds,
  plansOf,
  queued,
  statusesOf,
  uploadItems,
  type BundlerNode,
} from '../bundler/harness.js';

const ADMIN_TOKEN = 'test-only-admin-token-0123456789';

/**
 * Items FAILED for good (their one allowed bundle was lost by the gateway: posted, answered 200,
 * never mined, dropped past its anchor's expiry), put back in the queue by an operator, through the
 * admin API and through `npm run requeue` on the service's own data directory while it runs; once the
 * gateway behaves, the same items reach FINALIZED, and the audit finds nothing.
 */
describe('requeue of FAILED items (arlocal behind a faulty proxy)', function () {
  this.timeout(120_000);
  const suite = bundlerNodesOnArlocal(100_000);

  async function start(): Promise<BundlerNode> {
    // a generous gateway time limit: a busy machine's slow arlocal must not fail a step
    const node = await suite.start({ env: { MAX_BUNDLE_ATTEMPTS: '1', ADMIN_TOKEN }, timeoutMs: 20_000 });
    await suite.arlocal.mint(node.service.walletAddress, '100000000000000000');
    return node;
  }

  it('requeued with the admin API and the CLI, the same items go from FAILED to FINALIZED once the gateway heals', async () => {
    const node = await start();
    const { service } = node;
    const items = await uploadItems(service, [3_000, 4_000, 5_000]);

    // the gateway takes the bundle's header and chunks and forwards nothing: never mined
    suite.gateway.set(['tx', 'chunk'], 'drop');
    await node.pass();
    const [lost] = await liveBundleIds(service);
    expect((await bundleState(service, lost!))?.status, node.logs.at(-1)).to.equal('seeded');
    await suite.arlocal.mine(51);
    await node.pass();
    expect((await bundleState(service, lost!))?.status).to.equal('dropped');
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'FAILED', info: 'failed' });
    // posting again changes nothing: the item exists (202), and stays FAILED
    expect(
      (await fetch(`${service.url}/tx`, { method: 'POST', body: new Uint8Array(items[0]!.getRaw()), headers: { 'content-type': 'application/octet-stream' } }))
        .status,
    ).to.equal(202);
    expect((await statusesOf(service, items))[0]).to.deep.equal({ status: 'FAILED', info: 'failed' });

    // the operator: the first through the admin API, then every other one through the CLI
    const res = await fetch(`${service.url}/admin/items/${items[0]!.id}/requeue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'alice', reason: 'gateway lost bundles, fixed' }),
    });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ id: items[0]!.id, requeued: true, previousFailure: '1 bundles dropped' });
    expect((await statusesOf(service, items))[0]).to.deep.equal({ status: 'CONFIRMED', info: 'new' });

    const cli = await runScript('requeue', ['--all-failed', '--reason', 'gateway lost bundles, fixed', '--by', 'bob'], { DATA_DIR: node.dataDir });
    expect(cli.code, cli.stderr).to.equal(0);
    expect(
      cli.stdout
        .split('\n')
        .filter((l) => l.startsWith('requeued '))
        .map((l) => l.split(' ')[1])
        .sort(),
    ).to.deep.equal([items[1]!.id, items[2]!.id].sort());
    expect(cli.stdout).to.include('2 requeued\n');
    // the CLI wrote beside the running service: its projector picks the events up
    await service.projections.waitFor(await service.eventStore.headPosition(), 30_000);
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'CONFIRMED', info: 'new' });
    for (const item of items) expect(await queued(service, item.id)).to.include({ attempts: 0 });

    suite.gateway.heal();
    await node.pass();
    const plans = await plansOf(service, items[0]!.id);
    expect(plans).to.have.length(2);
    for (const item of items) expect(await plansOf(service, item.id)).to.deep.equal(plans);
    expect((await bundleState(service, plans[1]!))?.status, node.logs.at(-1)).to.equal('seeded');
    await suite.arlocal.mine(BLOCKS_TO_PERMANENT);
    await node.pass();
    const bundle = await bundleState(service, plans[1]!);
    expect(bundle?.status).to.equal('permanent');
    for (const status of await statusesOf(service, items)) expect(status).to.deep.equal({ status: 'FINALIZED', info: 'permanent', bundleId: bundle!.txId });

    // the item's history says who put it back and why; the audit finds the story consistent
    const history = await service.readStore.get<ItemHistoryDocument>(collectionOf(itemHistoryProjection), items[1]!.id);
    expect(history?.doc.entries.map((e) => e.type)).to.deep.equal([
      'DataItemAccepted',
      'BundlePlanned',
      'BundlePrepared',
      'BundleDropped',
      'DataItemFailed',
      'DataItemRequeued',
      'BundlePlanned',
      'BundlePrepared',
      'BundlePermanent',
    ]);
    expect(history?.doc.entries[5]?.summary).to.equal(
      'requeued by bob: gateway lost bundles, fixed; back in the bundle queue (it had failed: 1 bundles dropped)',
    );
    const findings: Finding[] = [];
    await runAudit({ eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, now: Date.now }, (f) => findings.push(f));
    expect(findings).to.deep.equal([]);
  });
});
