import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { BRIDGE_CHECKPOINT } from '../../src/app/bridge/bridgeRun.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { signedItem, signers } from '../support/items.js';
import { eventually } from '../support/eventually.js';
import { startOpticalGateway, type OpticalGatewayDouble } from '../support/opticalGateway.js';
import { TEST_BLOCK_HEIGHT, testServiceConfig } from '../support/testService.js';
import { bridgedEvents, bridgeEnv, upload } from './support.js';

const KEY = 'gateway-admin-key-for-tests';

describe('optical bridge across a restart', function () {
  this.timeout(120_000);
  let dataDir: string;
  let info: Awaited<ReturnType<typeof startGatewayInfo>>;
  let gateway: OpticalGatewayDouble;
  let service: RunningService | undefined;
  const start = () => {
    const config = testServiceConfig(dataDir, info.url, bridgeEnv(gateway.url, KEY, { OPTICAL_BRIDGE_MAX_ATTEMPTS: '1000' }));
    return startService(config, createLogger(config.logLevel));
  };
  const timesQueued = (id: string) => gateway.queued.filter((h) => h.id === id).length;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'optical-bridge-'));
    info = await startGatewayInfo(TEST_BLOCK_HEIGHT);
    gateway = await startOpticalGateway(KEY);
  });
  after(async () => {
    await service?.stop();
    await gateway.close();
    await info.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('posts what was left once, and nothing already posted again, even when the checkpoint was not saved', async () => {
    service = await start();
    const done = await signedItem(signers.arweave());
    expect((await upload(service, done.getRaw())).status).to.equal(200);
    await eventually(
      () => bridgedEvents(service!),
      (e) => e.length === 1,
      'the first item bridged',
    );
    // as after a crash right after the outcome's append: the checkpoint still before the item's acceptance
    let acceptedAt: bigint | undefined;
    for await (const recorded of service.eventStore.readAll()) if (recorded.type === 'DataItemAccepted') acceptedAt ??= recorded.position;
    await eventually(
      () => service!.readStore.getCheckpoint(BRIDGE_CHECKPOINT),
      (at) => at! >= acceptedAt!,
      'the checkpoint past it',
    );
    await service.readStore.commit([], [{ name: BRIDGE_CHECKPOINT, position: acceptedAt! - 1n }]);
    // left undone: the gateway fails them until the service stops
    gateway.failWith(500);
    const left = await Promise.all([1, 2].map(() => signedItem(signers.ethereum())));
    for (const item of left) expect((await upload(service, item.getRaw())).status).to.equal(200);
    await eventually(
      () => gateway.answers.get(500) ?? 0,
      (n) => n >= 2,
      'their posts refused',
    );
    await service.stop();

    gateway.failWith(undefined);
    service = await start();
    const after = await signedItem(signers.ethereum());
    expect((await upload(service, after.getRaw())).status).to.equal(200);
    await eventually(
      () => [...left, after].map((i) => timesQueued(i.id)),
      (n) => n.every((x) => x === 1),
      'the ones left and the new one posted',
    );
    const events = await eventually(
      () => bridgedEvents(service!),
      (e) => e.flatMap((x) => x.items).length >= 4,
      'their outcomes recorded',
    );
    expect(timesQueued(done.id)).to.equal(1);
    // accepted before the restart: read from their blobs; since: as its acceptance verified it
    expect(service.opticalBridge!.stats().headers).to.deep.equal({ handed: 1, read: 2 });
    expect(events.flatMap((e) => e.items).sort()).to.deep.equal([done, ...left, after].map((i) => i.id).sort());
    expect(events.every((e) => e.ok)).to.equal(true);
  });
});
