import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { nativeAddress } from '../../src/verify/index.js';
import { post, rawConnection, tempFiles, trickle, uploadHead } from './support.js';
import { eventually } from '../support/eventually.js';

const FREE = 1000;
const RATE = 10n; // winc per byte

async function credit(service: TestService, address: string, winc: bigint) {
  const { position } = await service.accounts.execute(
    { type: 'Credit', data: { address, winc, creditId: `${address}:${winc}`, now: Date.now() } },
    { correlationId: 'test' },
  );
  await service.projections.waitFor(position!, 5000);
}

const balanceOf = async (service: TestService, address: string) => (await fetch(`${service.url}/account/balance/${address}`)).json();

/** Sends the item's head, then its body in `step`-byte pieces every `everyMs`; resolves with what came back once closed. */
async function sendPaced(service: TestService, item: DataItem, step: number, everyMs: number): Promise<string> {
  const raw = item.getRaw();
  const conn = await rawConnection(service.url);
  conn.socket.write(uploadHead('/tx', { 'Content-Length': String(raw.length), Connection: 'close' }));
  for (let sent = 0; sent < raw.length && !conn.socket.destroyed; sent += step) {
    conn.socket.write(raw.subarray(sent, sent + step));
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return conn.closed;
}

describe('body timeouts: idle bodies and trickling bodies are cut', function () {
  this.timeout(60_000);

  describe('an idle body (BODY_IDLE_TIMEOUT_MS)', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ BODY_IDLE_TIMEOUT_MS: '400', MIN_BODY_BYTES_PER_SECOND: '0' });
    });
    after(() => service.close());

    it('is cut when no byte comes, leaves no temp file, and the service takes the next upload', async () => {
      const item = await signedItem(signers.ethereum(), new Uint8Array(5000));
      const conn = await rawConnection(service.url);
      conn.socket.write(uploadHead('/tx', { 'Content-Length': String(item.getRaw().length) }));
      conn.socket.write(item.getRaw().subarray(0, 200));
      expect(await conn.closed).to.equal('');
      await eventually(async () => (await tempFiles(service.dataDir)).length === 0, Boolean, 'no temp file left');
      const next = await post(service.url, '/tx', item.getRaw());
      expect(next.status).to.equal(200);
      expect(JSON.parse(next.body).id).to.equal(item.id);
    });
  });

  describe('a trickling body (MIN_BODY_BYTES_PER_SECOND after BODY_RATE_GRACE_MS, per BODY_RATE_WINDOW_MS)', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({
        BODY_IDLE_TIMEOUT_MS: '10000',
        MIN_BODY_BYTES_PER_SECOND: '256',
        BODY_RATE_GRACE_MS: '200',
        BODY_RATE_WINDOW_MS: '300',
        FREE_UPLOAD_LIMIT_BYTES: String(FREE),
        PRICE_WINC_PER_BYTE: String(RATE),
      });
    });
    after(() => service.close());

    it('cuts a paid upload sending a byte every 100 ms: no temp file, nothing reserved or charged, the service stays up', async () => {
      const signer = signers.ethereum();
      const item = await itemOfSize(signer, 3000);
      const owner = nativeAddress(3, item.rawOwner);
      await credit(service, owner, 100_000n);

      const conn = await rawConnection(service.url);
      conn.socket.write(uploadHead('/tx', { 'Content-Length': '3000' }));
      trickle(conn.socket, item.getRaw(), 100);
      expect(await conn.closed).to.equal('');
      await eventually(async () => (await tempFiles(service.dataDir)).length === 0, Boolean, 'no temp file left');
      expect(await balanceOf(service, owner)).to.include({ winc: '100000', reservedWinc: '0', spentWinc: '0' });
      expect((await fetch(`${service.url}/tx/${item.id}/status`)).status).to.equal(404);

      // the same item at a normal pace is taken and charged once
      const ok = await post(service.url, '/tx', item.getRaw());
      expect(ok.status).to.equal(200);
      expect(JSON.parse(ok.body).winc).to.equal('30000');
      expect(await balanceOf(service, owner)).to.include({ winc: '70000', reservedWinc: '0', spentWinc: '30000' });
    });

    it('takes a slow body that keeps above the minimum rate (200 bytes every 50 ms)', async () => {
      const item = await signedItem(signers.ethereum(), new Uint8Array(800));
      const answer = await sendPaced(service, item, 200, 50);
      expect(answer).to.match(/^HTTP\/1\.1 200 OK\r\n/);
      expect(answer).to.include(`"id":"${item.id}"`);
    });

    it('cuts a trickling chunk; the same chunk sent again at a normal pace is stored', async () => {
      // free (under the free limit), so only the pace matters
      const item = await signedItem(signers.ethereum(), new Uint8Array(500));
      const raw = item.getRaw();
      const { id: uploadId } = await (await fetch(`${service.url}/chunks/arweave/-1/-1`)).json();
      const conn = await rawConnection(service.url);
      conn.socket.write(uploadHead(`/chunks/arweave/${uploadId}/0`, { 'Content-Length': String(raw.length) }));
      trickle(conn.socket, raw, 100);
      expect(await conn.closed).to.equal('');

      const chunk = await post(service.url, `/chunks/arweave/${uploadId}/0`, raw);
      expect(chunk.status).to.equal(200);
      const finalized = await post(service.url, `/chunks/arweave/${uploadId}/-1`, new Uint8Array(0));
      expect(finalized.status).to.equal(200);
      expect(JSON.parse(finalized.body).id).to.equal(item.id);
    });
  });
});
