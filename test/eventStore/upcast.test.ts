import { expect } from 'chai';
import { BundleRepository } from '../../src/app/bundles.js';
import { bundleStream } from '../../src/domain/bundle/ids.js';
import { history } from '../../src/history/history.js';
import { schemaVersionOf } from '../../src/domain/upcasters.js';
import { allProjections, bundleQueueProjection, collectionOf, type QueuedItem } from '../../projections/index.js';
import { rebuild } from '../../projections/rebuild.js';
import type { TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { auditOf, planQueued, startPricedService, uploaded } from '../audit/support.js';

/**
 * An event stored in an older shape (here a BundleDropped of schema version 1, before
 * `countsAsAttempt` was required) is read as today's shape by every reader of the store: the
 * aggregate, the projector and a rebuild, the audit and the history.
 */
describe('upcasting: an event stored in an older shape', function () {
  this.timeout(60_000);
  let service: TestService;
  let itemId: string;
  let planId: string;

  before(async () => {
    service = await startPricedService();
    const item = await itemOfSize(signers.ethereum(), 1000);
    itemId = item.id;
    await uploaded(service, item);
    planId = (await planQueued(service))[0]!;
    // as an earlier version of the service wrote it: no countsAsAttempt, schema version 1
    const { position } = await service.eventStore.append(
      bundleStream(planId),
      [
        {
          id: '6b1f2c1e-4a57-4c8e-9a0b-3d7e7f0c1a01',
          type: 'BundleDropped',
          data: { planId, itemIds: [itemId], reason: 'dropped by an earlier version', timestamp: 1_700_000_000_000 },
          metadata: { correlationId: 'earlier-version', schemaVersion: 1 },
        },
      ],
      0n,
    );
    await service.projections.waitFor(position, 10_000);
  });
  after(() => service?.close());

  it('is written today in schema version 2', () => {
    expect(schemaVersionOf('BundleDropped')).to.equal(2);
    expect(schemaVersionOf('BundlePlanned')).to.equal(1);
  });

  it('reads in the aggregate as a drop that counted', async () => {
    const bundle = await new BundleRepository(service.eventStore).read(planId);
    expect(bundle?.status).to.equal('dropped');
  });

  it('is projected, live and in a rebuild, as a drop that counted an attempt', async () => {
    const queued = async () => (await service.readStore.get<QueuedItem>(collectionOf(bundleQueueProjection), itemId))?.doc;
    expect(await queued())
      .to.include({ attempts: 1 })
      .and.not.have.property('planId');
    await rebuild({ eventStore: service.eventStore, readStore: service.readStore, projections: allProjections });
    expect(await queued())
      .to.include({ attempts: 1 })
      .and.not.have.property('planId');
  });

  it('is audited without a finding', async () => {
    const { findings, summary } = await auditOf(service);
    expect(findings).to.deep.equal([]);
    expect(summary.findings).to.equal(0);
  });

  it('is shown by the history as a drop that counted', async () => {
    const lines: string[] = [];
    for await (const line of history({ eventStore: service.eventStore }, planId)) lines.push(line);
    expect(lines).to.have.length(3);
    expect(lines[2]).to.match(/BundleDropped +dropped: dropped by an earlier version; 1 items back to the queue {2}\[correlation earlier-version\]$/);
  });
});
