import { expect } from 'chai';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { testServiceConfig, type TestService } from '../support/testService.js';
import { asBody, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_TOKEN, block, FREE, ownerOf, startBlocklistService, unblock } from './support.js';

/**
 * Split roles: a commands-only replica beside the service, on the same data directory, sees a block
 * made through the other one's admin API (it follows the block list's stream, not a read model).
 */
describe('block list: a commands-only replica', function () {
  this.timeout(60_000);
  let service: TestService;
  let replica: RunningService;
  before(async () => {
    service = await startBlocklistService();
    const config = testServiceConfig(service.dataDir, service.gatewayUrl, {
      ROLE: 'commands',
      ADMIN_TOKEN,
      FREE_UPLOAD_LIMIT_BYTES: String(FREE),
      PRICE_WINC_PER_BYTE: '1',
    });
    replica = await startService(config, createLogger(config.logLevel));
  });
  after(async () => {
    await replica?.stop();
    await service?.close();
  });

  const statusAtReplica = async (signer: ReturnType<typeof signers.ethereum>) =>
    (await fetch(`${replica.url}/tx`, { method: 'POST', body: asBody((await itemOfSize(signer, 900)).getRaw()) })).status;

  it('refuses an owner blocked through the other process, and takes it again once unblocked there', async () => {
    const signer = signers.ethereum();
    const owner = ownerOf(await itemOfSize(signer, 900));
    expect(await statusAtReplica(signer)).to.equal(200);
    await block(service, owner);
    await eventually(async () => (await statusAtReplica(signer)) === 403, Boolean, 'the replica refuses the owner', 30_000);
    await unblock(service, owner);
    await eventually(async () => (await statusAtReplica(signer)) === 200, Boolean, 'the replica takes the owner again', 30_000);
  });
});
