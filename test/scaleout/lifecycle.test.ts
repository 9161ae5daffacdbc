/**
 * An item's whole life on the scale-out profile: uploaded (single and multi-part), bundled to arlocal
 * until FINALIZED with offsets that point at its bytes, then `npm run rebuild` and `npm run audit`
 * run as operators run them, in their own processes, on the same EventStoreDB node and stores: MongoDB
 * read models and GridFS bytes (`scaleoutStores()`), whose transactions keep the rebuild's commits and
 * the serving projector's apart (on the stand-in as on a real replica set).
 */
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { allProjections, collectionOf } from '../../projections/index.js';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from '../support/arlocal.js';
import { expectOffsetsInBundle } from '../support/bundleOffsets.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { runScript } from '../support/runScript.js';
import { itemOfSize } from '../support/sizedItem.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { freshReadModels, readModelsOf } from '../projections/readModels.js';
import { startScaleoutService, type ScaleoutService } from './support.js';

describe('an item from upload to FINALIZED, rebuilt and audited, on the scale-out profile', function () {
  this.timeout(240_000);
  let arlocal: Arlocal;
  let service: ScaleoutService;
  let items: DataItem[];
  before(async () => {
    arlocal = await startArlocal();
    service = await startScaleoutService({ GATEWAY_URL: arlocal.url, BUNDLE_MAX_WAIT_MS: '0', ...ARLOCAL_HEIGHT_SETTINGS });
    await arlocal.mint(service.walletAddress, '100000000000000000');
  });
  after(async () => {
    await service?.close();
    await arlocal?.stop();
  });

  /** the settings of an operator CLI on this service's stores */
  const cliEnv = () => ({ ...service.esdb.env, DATA_DIR: service.dataDir, WALLET_FILE: SERVICE_WALLET_FILE });

  it('takes single and multi-part items to FINALIZED/permanent, each offset pointing at its bytes in the bundle', async () => {
    items = [
      await signedItem(signers.arweave(), 'an arweave item', [{ name: 'Content-Type', value: 'text/plain' }]),
      await signedItem(signers.ethereum(), new Uint8Array(300_000).fill(3)),
      await signedItem(signers.solana(), new Uint8Array(0)),
      await itemOfSize(signers.ethereum(), 70_000),
    ];
    for (const item of items.slice(0, 3)) {
      expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    }
    const uploadId = await createUpload(service.url);
    await postChunks(service.url, uploadId, items[3]!.getRaw(), 30_000);
    expect((await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);

    await service.bundler.runOnce();
    const pending = await Promise.all(items.map(async (i) => (await fetch(`${service.url}/tx/${i.id}/status`)).json()));
    const bundleId = pending[0].bundleId as string;
    expect(bundleId).to.match(/^[A-Za-z0-9_-]{43}$/);
    for (const status of pending) expect(status).to.include({ status: 'CONFIRMED', info: 'pending', bundleId });

    await arlocal.mine(20);
    await service.bundler.runOnce();
    for (const item of items) {
      const status = await (await fetch(`${service.url}/tx/${item.id}/status`)).json();
      expect(status).to.include({ status: 'FINALIZED', info: 'permanent', bundleId });
    }
    await expectOffsetsInBundle(service.url, arlocal, items, bundleId);
  });

  it('npm run rebuild switches every read model to one rebuilt from the node, equal to a fresh projection, while serving', async () => {
    const head = await service.eventStore.headPosition();
    const result = await runScript('rebuild', [], cliEnv());
    expect(result.code, result.stderr).to.equal(0);
    const out = result.stdout.trimEnd().split('\n');
    expect(out.slice(0, -1)).to.deep.equal(allProjections.map((p) => `switched to the rebuilt ${collectionOf(p)} (at position ${head})`));
    expect(await service.projections.waitFor(await service.eventStore.headPosition(), 30_000)).to.equal(true);
    expect(await readModelsOf(service.readStore, allProjections)).to.deep.equal(await freshReadModels(service.eventStore, allProjections));
    for (const item of items) {
      expect((await (await fetch(`${service.url}/tx/${item.id}/status`)).json()).status).to.equal('FINALIZED');
    }
  });

  it('npm run audit finds nothing in the node and the stores, and checks every item', async () => {
    const result = await runScript('audit', ['--json', '--blob-grace-minutes', '0'], cliEnv());
    expect(result.code, `${result.stdout}\n${result.stderr}`).to.equal(0);
    const report = JSON.parse(result.stdout);
    expect(report.findings).to.deep.equal([]);
    expect(report.findingCount).to.equal(0);
    expect(report.head).to.equal(String(await service.eventStore.headPosition()));
  });
});
