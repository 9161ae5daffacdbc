import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startArlocal, ARLOCAL_HEIGHT_SETTINGS, type Arlocal } from '../support/arlocal.js';
import { startFaultyGateway, type FaultyGateway } from '../support/faultyGateway.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { itemBlobKey, type DataItemId } from '../../src/domain/ids.js';
import { BlobNotFound } from '../../src/ports/blobStore.js';

const DAY_MS = 86_400_000;
const CONFIRMATIONS = 3;

/**
 * An item whose first bundle the network never mined (the gateway took the header and chunks and
 * dropped them) is bundled again. However long after that first bundle was posted, its bytes stay
 * until the new bundle is permanent and RETAIN_PERMANENT_BYTES_MS has passed since: the window
 * counts from the permanence of the bundle the item is in, never from an earlier one.
 */
describe('retention: a dropped and re-posted bundle keeps its items’ bytes (arlocal)', function () {
  this.timeout(180_000);
  let arlocal: Arlocal;
  let gateway: FaultyGateway;
  let service: TestService;
  /** how far the service's clocks, wall and monotonic, are ahead of the system's: time passing */
  let ahead = 0;
  let item: DataItem;
  const get = (path: string) => fetch(`${service.url}${path}`);
  const status = async () => (await (await get(`/tx/${item.id}/status`)).json()) as { status: string; bundleId?: string };
  const blobThere = async () => {
    try {
      (await service.blobStore.read(itemBlobKey(item.id as DataItemId))).destroy();
      return true;
    } catch (error) {
      if (BlobNotFound.is(error)) return false;
      throw error;
    }
  };
  /** the txIds of the events of `type` (bundle events) so far */
  const txIdsOf = async (type: string) => {
    const txIds: string[] = [];
    for await (const e of service.eventStore.readAll()) if (e.type === type) txIds.push((e.data as { txId: string }).txId);
    return txIds;
  };
  /** a bundler pass, then the read models caught up */
  const pass = async () => {
    await service.bundler.runOnce();
    await service.projections.waitFor(await service.eventStore.headPosition(), 10_000);
  };

  before(async () => {
    arlocal = await startArlocal();
    gateway = await startFaultyGateway(arlocal.url);
    const env = {
      GATEWAY_URL: gateway.url,
      BUNDLE_MAX_WAIT_MS: '0',
      ...ARLOCAL_HEIGHT_SETTINGS,
      CONFIRMATIONS: String(CONFIRMATIONS),
      FREE_UPLOAD_LIMIT_BYTES: String(1024 * 1024),
      RETAIN_PERMANENT_BYTES_MS: String(DAY_MS),
    };
    service = await startTestService(env, async () => ({ clocks: { monotonic: () => performance.now() + ahead, wall: () => Date.now() + ahead } }));
    await arlocal.mint(service.walletAddress, '100000000000000000');
    item = await signedItem(signers.arweave(), 'dropped once');
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
  });
  after(async () => {
    await service?.close();
    await gateway?.close();
    await arlocal?.stop();
  });

  it('keeps the bytes past the window while the item waits for its second bundle to be permanent', async () => {
    gateway.set(['tx', 'chunk'], 'drop');
    await pass();
    const [first] = await txIdsOf('BundlePosted');
    expect(first).to.be.a('string');
    ahead += 2 * DAY_MS;
    await arlocal.mine(51);
    await pass();
    expect(await txIdsOf('BundleDropped')).to.deep.equal([first]);
    gateway.heal();
    await pass();
    await arlocal.mine(1);
    await pass();
    // in a new transaction, mined but short of CONFIRMATIONS
    const second = await status();
    expect(second.status).to.equal('CONFIRMED');
    expect(second.bundleId).to.be.a('string').and.not.equal(first);
    expect((await (await get(`/tx/${item.id}/offsets`)).json()).rootBundleId).to.equal(second.bundleId);
    ahead += 2 * DAY_MS;
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 0 });
    expect(await blobThere()).to.equal(true);
  });

  it('keeps them once that bundle is permanent until the window has passed since, then retires them', async () => {
    await arlocal.mine(CONFIRMATIONS + 1);
    await pass();
    expect((await status()).status).to.equal('FINALIZED');
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 0 });
    ahead += DAY_MS - 60_000;
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 0 });
    expect(await blobThere()).to.equal(true);
    ahead += 120_000;
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 1 });
    expect(await blobThere()).to.equal(false);
    const read = await get(`/${item.id}`);
    expect(read.status).to.equal(200);
    expect(await read.text()).to.equal('dropped once');
  });
});
