import { expect } from 'chai';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, postChunk } from '../support/multipart.js';
import { startTestService, TEST_BLOCK_HEIGHT, type TestService } from '../support/testService.js';
import { eventually } from '../support/eventually.js';

const DAY = 86_400_000;
const MINUTE = 60_000;

/**
 * Issue 34, finding 7: a step of the wall clock, a day forward then a day back, as an operator or NTP
 * after a suspend makes it. The whole process's `Date.now` is stepped (installed before the service
 * starts, so every clock it captures is the stepped one); the monotonic clock is the test's, advanced
 * by hand: time really passing. Ages and ceilings follow the monotonic one only (src/clock.ts).
 */
describe('a wall clock that steps (issue 34)', () => {
  const systemNow = Date.now.bind(Date);
  let step = 0;
  let monotonic = 1_000;
  let service: TestService;
  let uploadId: string;

  /** two more `GET /info` calls: at least one refresh of the block height ran wholly at the clock as set now */
  async function refreshed(): Promise<void> {
    const seen = service.gateway.requests();
    // eventually's deadline runs on performance.now(), which no stub moves
    await eventually(
      () => service.gateway.requests(),
      (n) => n >= seen + 2,
      'two block height refreshes',
      30_000,
    );
  }
  const ready = async () => {
    const res = await fetch(`${service.url}/ready`);
    return { status: res.status, body: await res.json() };
  };
  const upload = async () =>
    (await fetch(`${service.url}/tx`, { method: 'POST', body: new Uint8Array((await itemOfSize(signers.arweave(), 2_000)).getRaw()) })).status;
  const uploadView = async () => (await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`)).status;

  before(async () => {
    Date.now = () => systemNow() + step;
    service = await startTestService({ BLOCK_HEIGHT_REFRESH_MS: '1000' }, async () => ({ clocks: { monotonic: () => monotonic } }));
    await eventually(
      async () => (await ready()).status,
      (status) => status === 200,
      'ready',
      30_000,
    );
    uploadId = await createUpload(service.url);
    const item = await itemOfSize(signers.arweave(), 6_000);
    expect((await postChunk(service.url, uploadId, 0, item.getRaw().subarray(0, 3_000))).status).to.equal(200);
    await service.projections.waitFor(await service.eventStore.headPosition(), 5000);
  });
  after(async () => {
    Date.now = systemNow;
    await service?.close();
  });

  it('stepped a day forward: uploads and /ready answer 200, and no multi-part upload in progress expires', async () => {
    step = DAY;
    await refreshed();
    expect((await ready()).status).to.equal(200);
    expect(await upload()).to.equal(200);
    expect(await service.expireUploads()).to.equal(0);
    expect(await uploadView()).to.equal(200);
  });

  it('stepped back a day: uploads and /ready answer 200, and the heights that real time allows are taken', async () => {
    step = 0;
    expect((await ready()).status).to.equal(200);
    await refreshed();
    expect((await ready()).status).to.equal(200);
    expect(await upload()).to.equal(200);
    expect(await service.expireUploads()).to.equal(0);
    // 20 blocks more than the burst allowed (100): ten minutes of blocks of 30 s
    service.gateway.setHeight(TEST_BLOCK_HEIGHT + 120);
    monotonic += 10 * MINUTE;
    await refreshed();
    const { status, body } = await ready();
    expect(status).to.equal(200);
    expect(body.checks.blockHeight.height).to.equal(TEST_BLOCK_HEIGHT + 120);
    expect(await upload()).to.equal(200);
  });

  it('expires the upload once its lifetime really passed, on the monotonic clock', async () => {
    expect(await service.expireUploads()).to.equal(0);
    monotonic += DAY;
    expect(await service.expireUploads()).to.equal(1);
    await service.projections.waitFor(await service.eventStore.headPosition(), 5000);
    expect(await uploadView()).to.equal(404);
  });
});
