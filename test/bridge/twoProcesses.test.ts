import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { signedItem, signers } from '../support/items.js';
import { eventually } from '../support/eventually.js';
import { startOpticalGateway, type OpticalGatewayDouble } from '../support/opticalGateway.js';
import { TEST_BLOCK_HEIGHT, testServiceConfig } from '../support/testService.js';
import { bridgedEvents, bridgeEnv, upload } from './support.js';

const KEY = 'gateway-admin-key-for-tests';

describe('optical bridge in two command processes on one store', function () {
  this.timeout(120_000);
  let dataDir: string;
  let info: Awaited<ReturnType<typeof startGatewayInfo>>;
  let gateway: OpticalGatewayDouble;
  const services: RunningService[] = [];

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'optical-bridge-two-'));
    info = await startGatewayInfo(TEST_BLOCK_HEIGHT);
    gateway = await startOpticalGateway(KEY);
  });
  after(async () => {
    for (const s of services.reverse()) await s.stop();
    await gateway.close();
    await info.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('posts each header once (one bridge holds the lease), whichever process took the upload', async () => {
    for (const role of ['all', 'commands']) {
      const config = testServiceConfig(dataDir, info.url, { ROLE: role, ...bridgeEnv(gateway.url, KEY) });
      services.push(await startService(config, createLogger(config.logLevel)));
    }
    const items = await Promise.all(Array.from({ length: 10 }, () => signedItem(signers.ethereum())));
    for (const [i, item] of items.entries()) expect((await upload(services[i % 2]!, item.getRaw())).status).to.equal(200);
    const ids = items.map((i) => i.id).sort();
    await eventually(
      () => bridgedEvents(services[0]!),
      (e) => e.flatMap((x) => x.items).length >= ids.length,
      'every outcome recorded',
    );
    expect(gateway.queued.map((h) => h.id).sort()).to.deep.equal(ids);
    expect((await bridgedEvents(services[0]!)).flatMap((e) => e.items).sort()).to.deep.equal(ids);
  });
});
