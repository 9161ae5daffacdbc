import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startArlocal, ARLOCAL_HEIGHT_SETTINGS, type Arlocal } from '../support/arlocal.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { eventually } from '../support/eventually.js';
import { dataItemStream, itemBlobKey, type DataItemId } from '../../src/domain/ids.js';
import { BlobNotFound } from '../../src/ports/blobStore.js';
import { BundleRepository } from '../../src/app/bundles.js';
import { createRetention } from '../../src/app/retention/retention.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { collectionOf, retentionDueProjection, type RetentionDue } from '../../projections/index.js';

const DAY_MS = 86_400_000;
const CONFIRMATIONS = 3;

/**
 * The retention pass deletes an item's blob only once the read models show its ItemBytesRetired
 * (from then on a read that finds the blob gone finds the retirement, and the gateway): a pass of the
 * service's own stores, whose wait for the read models the test holds, then answers.
 */
describe('retention: the deletion waits for the read models', function () {
  this.timeout(120_000);
  let arlocal: Arlocal;
  let service: TestService;
  /** how far the service's clocks are ahead of the system's */
  let ahead = 0;
  let items: DataItem[];
  /** the first item's retention-due document, as it was before its retirement */
  let stillDue: RetentionDue | undefined;
  const get = (path: string) => fetch(`${service.url}${path}`);
  const blobThere = async (item: DataItem) => {
    try {
      (await service.blobStore.read(itemBlobKey(item.id as DataItemId))).destroy();
      return true;
    } catch (error) {
      if (BlobNotFound.is(error)) return false;
      throw error;
    }
  };
  const retirements = async (item: DataItem) => {
    let n = 0;
    for await (const e of service.eventStore.readStream(dataItemStream(item.id as DataItemId))) if (e.type === 'ItemBytesRetired') n += 1;
    return n;
  };

  /** a retention pass of the service's stores on its clocks, whose waits for the read models the test answers */
  const retentionWaitingOn = (waits: { position: bigint; answer: (shown: boolean) => void }[], readStore: Pick<ReadStore, 'findByKey'>) =>
    createRetention({
      readStore,
      items: service.items,
      bundles: new BundleRepository(service.eventStore),
      blobStore: service.blobStore,
      retainMs: DAY_MS,
      clock: () => Date.now() + ahead,
      awaitProjection: (position) => new Promise((answer) => waits.push({ position, answer })),
      intervalMs: DAY_MS,
      now: () => Date.now() + ahead,
    });

  before(async () => {
    arlocal = await startArlocal();
    const env = {
      GATEWAY_URL: arlocal.url,
      BUNDLE_MAX_WAIT_MS: '0',
      ...ARLOCAL_HEIGHT_SETTINGS,
      CONFIRMATIONS: String(CONFIRMATIONS),
      FREE_UPLOAD_LIMIT_BYTES: String(1024 * 1024),
      RETAIN_PERMANENT_BYTES_MS: String(DAY_MS),
      // the service's own pass stays out of the way: the test runs one of its own
      RETAIN_INTERVAL_MS: String(DAY_MS),
    };
    service = await startTestService(env, async () => ({ clocks: { monotonic: () => performance.now() + ahead, wall: () => Date.now() + ahead } }));
    await arlocal.mint(service.walletAddress, '100000000000000000');
    items = await Promise.all([signedItem(signers.arweave(), 'first'), signedItem(signers.ethereum(), 'second')]);
    // in the pass's order (one permanence time: by id)
    items.sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const item of items) expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    await eventually(
      async () => {
        await service.bundler.runOnce();
        await arlocal.mine(CONFIRMATIONS + 1);
        await service.bundler.runOnce();
        return Promise.all(items.map(async (i) => (await (await get(`/tx/${i.id}/status`)).json()).status));
      },
      (s) => s.every((status) => status === 'FINALIZED'),
      'both items FINALIZED',
      60_000,
    );
    await service.projections.waitFor(await service.eventStore.headPosition(), 10_000);
    ahead += DAY_MS + 60_000;
  });
  after(async () => {
    await service?.close();
    await arlocal?.stop();
  });

  it('keeps a blob while the read models do not show its retirement, serving reads from it, and deletes it once they do', async () => {
    const waits: { position: bigint; answer: (shown: boolean) => void }[] = [];
    const retention = retentionWaitingOn(waits, service.readStore);
    stillDue = (await service.readStore.get<RetentionDue>(collectionOf(retentionDueProjection), items[0]!.id))!.doc;
    const pass = retention.runOnce();
    const [givenUp, waitedFor] = items as [DataItem, DataItem];
    // the first item's retirement recorded, the read models never showing it: its blob stays
    await eventually(
      () => waits.length,
      (n) => n === 1,
      'the pass waits for the read models (first item)',
    );
    expect(await retirements(givenUp)).to.equal(1);
    expect(await blobThere(givenUp)).to.equal(true);
    waits[0]!.answer(false);
    await eventually(
      () => waits.length,
      (n) => n === 2,
      'the pass waits for the read models (second item)',
    );
    expect(await blobThere(givenUp)).to.equal(true);
    // the second's recorded, not yet shown: still read from its blob
    expect(await retirements(waitedFor)).to.equal(1);
    expect(await blobThere(waitedFor)).to.equal(true);
    const read = await get(`/${waitedFor.id}`);
    expect(read.status).to.equal(200);
    expect(Buffer.from(await read.arrayBuffer()).equals(Buffer.from(waitedFor.rawData))).to.equal(true);
    await service.projections.waitFor(waits[1]!.position, 10_000);
    waits[1]!.answer(true);
    expect(await pass).to.deep.equal({ retired: 1 });
    expect(await blobThere(waitedFor)).to.equal(false);
    expect(await blobThere(givenUp)).to.equal(true);
  });

  it('waits for the read models again before deleting a blob an earlier pass recorded retired and gave up waiting on', async () => {
    const givenUp = items[0]!;
    expect([await retirements(givenUp), await blobThere(givenUp)]).to.deep.equal([1, true]);
    const waits: { position: bigint; answer: (shown: boolean) => void }[] = [];
    const due = await service.readStore.get<RetentionDue>(collectionOf(retentionDueProjection), givenUp.id);
    expect(due, 'the projector has caught up with the retirement').to.equal(undefined);
    const retention = retentionWaitingOn(
      waits,
      // the read models as a lagging projector leaves them: the item still due
      { findByKey: async () => [{ id: givenUp.id, sort: '0', doc: stillDue! }] } as unknown as Pick<ReadStore, 'findByKey'>,
    );
    const pass = retention.runOnce();
    await eventually(
      () => waits.length,
      (n) => n === 1,
      'the pass waits for the read models to show the earlier retirement',
    );
    expect(await blobThere(givenUp)).to.equal(true);
    waits[0]!.answer(true);
    expect(await pass).to.deep.equal({ retired: 1 });
    expect(await retirements(givenUp)).to.equal(1);
    expect(await blobThere(givenUp)).to.equal(false);
  });
});
