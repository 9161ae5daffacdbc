import { expect } from 'chai';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataItem } from 'arbundles';
import { ReadModelsAhead } from '../../projections/aheadOfEvents.js';
import { allProjections, bundleQueueProjection, checkpointOf, collectionOf } from '../../projections/index.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { runScript } from '../support/runScript.js';
import { SERVICE_WALLET_FILE, TEST_BLOCK_HEIGHT, testServiceConfig } from '../support/testService.js';
import { eventually } from '../support/eventually.js';

/** An older events.db put back under newer read models (a restore from a backup, or a store deleted and begun anew). */
describe('an event store older than its read models', function () {
  this.timeout(120_000);
  let dataDir: string;
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  const start = () => {
    const config = testServiceConfig(dataDir, gateway.url);
    return startService(config, createLogger(config.logLevel));
  };
  const upload = async (service: RunningService, item: DataItem) => {
    const res = await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status, `upload of ${item.id}`).to.equal(200);
  };
  const statusOf = async (service: RunningService, item: DataItem) => (await fetch(`${service.url}/v1/tx/${item.id}/status`)).status;
  const events = (name = 'events.db') => join(dataDir, name);

  before(async function () {
    dataDir = await mkdtemp(join(tmpdir(), 'older-events-'));
    gateway = await startGatewayInfo(TEST_BLOCK_HEIGHT);
  });
  after(async function () {
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses to start naming the read models, their checkpoint, the head and what to do; after npm run rebuild it starts and projects new uploads', async function () {
    const kept = await signedItem(signers.arweave());
    const lost = await signedItem(signers.arweave());
    let service = await start();
    await upload(service, kept);
    const olderHead = await service.eventStore.headPosition();
    await service.stop();
    // the backup: the file alone, as the service left it (closed, its log written into it)
    await copyFile(events(), events('events.backup.db'));

    service = await start();
    await upload(service, lost);
    const newerCheckpoint = await service.readStore.getCheckpoint(checkpointOf(allProjections[0]!));
    expect(newerCheckpoint! > olderHead).to.equal(true);
    await service.stop();
    await copyFile(events('events.backup.db'), events());

    const refusal = await start().then(
      async (started) => {
        await started.stop();
        throw new Error('the service started on read models ahead of its event store');
      },
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(ReadModelsAhead);
    const message = (refusal as Error).message;
    const models = allProjections.map((p) => `${checkpointOf(p)} (checkpoint ${newerCheckpoint})`).join(', ');
    expect(message).to.equal(
      `read models ${models} are ahead of the event store, whose head is position ${olderHead}: the event store is older than the read models ` +
        '(an older copy was put back, or it was replaced). Nothing appended now would reach them. Either put back the event store that goes ' +
        'with them, or rebuild them from this one with `npm run rebuild` (same configuration, service stopped), then start again.',
    );
    // from the command line: that message, no stack, exit 1
    const cli = await runScript('../src/main', [], {
      DATA_DIR: dataDir,
      GATEWAY_URL: gateway.url,
      PORT: '0',
      HOST: '127.0.0.1',
      WALLET_FILE: SERVICE_WALLET_FILE,
    });
    expect({ code: cli.code, stderr: cli.stderr }).to.deep.equal({ code: 1, stderr: `start-up failed: ${message}\n` });

    const rebuilt = await runScript('rebuild', [], { DATA_DIR: dataDir });
    expect(rebuilt.code, rebuilt.stderr).to.equal(0);

    service = await start();
    try {
      expect(await statusOf(service, kept)).to.equal(200);
      expect(await statusOf(service, lost)).to.equal(404);
      const fresh = await signedItem(signers.arweave());
      await upload(service, fresh);
      await eventually(async () => (await statusOf(service, fresh)) === 200, Boolean, 'the new upload projected');
      expect(await service.readStore.get(collectionOf(bundleQueueProjection), fresh.id), 'queued for bundling').to.not.equal(undefined);
      expect((await fetch(`${service.url}/ready`)).status).to.equal(200);
    } finally {
      await service.stop();
    }
  });
});
