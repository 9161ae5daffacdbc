import { get as httpGet, type IncomingMessage } from 'node:http';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startArlocal, ARLOCAL_HEIGHT_SETTINGS, type Arlocal } from '../support/arlocal.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { eventually } from '../support/eventually.js';

const DAY_MS = 86_400_000;
const CONFIRMATIONS = 3;
/** GATEWAY_TIMEOUT_MS: how long a retired read waits for the gateway's next byte */
const GATEWAY_IDLE_MS = 2_000;
const SIZE = 8 * 1024 * 1024;

/**
 * A retired item read by a client slower than the gateway: the read from the gateway goes at the
 * client's pace (nothing read ahead of it), and the time the client keeps it waiting is not counted
 * against the gateway (GATEWAY_TIMEOUT_MS is the gateway's time to send its next byte).
 */
describe('retention: a slow reader of a retired item (arlocal)', function () {
  this.timeout(180_000);
  let arlocal: Arlocal;
  let service: TestService;
  let ahead = 0;
  let item: DataItem;

  before(async () => {
    arlocal = await startArlocal();
    const env = {
      GATEWAY_URL: arlocal.url,
      BUNDLE_MAX_WAIT_MS: '0',
      ...ARLOCAL_HEIGHT_SETTINGS,
      CONFIRMATIONS: String(CONFIRMATIONS),
      FREE_UPLOAD_LIMIT_BYTES: String(2 * SIZE),
      RETAIN_PERMANENT_BYTES_MS: String(DAY_MS),
      GATEWAY_TIMEOUT_MS: String(GATEWAY_IDLE_MS),
    };
    service = await startTestService(env, async () => ({ clocks: { monotonic: () => performance.now() + ahead, wall: () => Date.now() + ahead } }));
    await arlocal.mint(service.walletAddress, '100000000000000000');
    item = await itemOfSize(signers.arweave(), SIZE);
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    await eventually(
      async () => {
        await service.bundler.runOnce();
        await arlocal.mine(CONFIRMATIONS + 1);
        await service.bundler.runOnce();
        return (await (await fetch(`${service.url}/tx/${item.id}/status`)).json()).status;
      },
      (status) => status === 'FINALIZED',
      'the item FINALIZED',
      120_000,
    );
    await service.projections.waitFor(await service.eventStore.headPosition(), 10_000);
    ahead += DAY_MS + 60_000;
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 1 });
  });
  after(async () => {
    await service?.close();
    await arlocal?.stop();
  });

  it('answers in full, byte for byte, a client that stops reading for longer than GATEWAY_TIMEOUT_MS', async () => {
    const response = await new Promise<IncomingMessage>((resolve, reject) => httpGet(`${service.url}/${item.id}`, resolve).once('error', reject));
    expect(response.statusCode).to.equal(200);
    const parts: Buffer[] = [];
    const first = await new Promise<Buffer>((resolve) => response.once('data', resolve));
    parts.push(first);
    response.pause();
    // the client reads nothing for three times the gateway's idle limit
    const stalled = performance.now();
    await eventually(
      () => performance.now() - stalled,
      (ms) => ms > 3 * GATEWAY_IDLE_MS,
      'the client stalled',
      10 * GATEWAY_IDLE_MS,
      100,
    );
    const ended = await new Promise<boolean>((resolve) => {
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.once('end', () => resolve(response.complete));
      response.once('error', () => resolve(false));
      response.resume();
    });
    const body = Buffer.concat(parts);
    expect({ ended, length: body.length }).to.deep.equal({ ended: true, length: item.rawData.length });
    expect(body.equals(Buffer.from(item.rawData))).to.equal(true);
  });
});
