import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startTestService, SERVICE_WALLET_FILE, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { arweaveAddress } from '../../src/wallet/address.js';

describe('service information (GET / and /info)', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ ADDRESS_ETHEREUM: '0x0000000000000000000000000000000000000001' });
  });
  after(() => service.close());

  it('answers the same body on /, /info, /v1 and /v1/info', async () => {
    const wallet = JSON.parse(await readFile(SERVICE_WALLET_FILE, 'utf8'));
    const expected = {
      version: JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).version,
      gateway: service.gatewayUrl,
      addresses: { arweave: arweaveAddress(wallet.n), ethereum: '0x0000000000000000000000000000000000000001' },
      freeUploadLimitBytes: 517120,
    };
    for (const path of ['/', '/info', '/v1', '/v1/', '/v1/info']) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(await res.json(), path).to.deep.equal(expected);
    }
  });

  it('allows any origin with credentials and answers preflight with 204', async () => {
    const res = await fetch(`${service.url}/v1/tx`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.status).to.equal(204);
    expect(res.headers.get('access-control-allow-origin')).to.equal('https://app.example');
    expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
    expect(res.headers.get('access-control-allow-headers')).to.equal('content-type');
  });

  it('lets a browser script read the x-request-id of an answer', async () => {
    const res = await fetch(`${service.url}/info`, { headers: { origin: 'https://app.example', 'x-request-id': 'quote-me-1' } });
    expect(res.headers.get('access-control-expose-headers')).to.equal('x-request-id');
    expect(res.headers.get('x-request-id')).to.equal('quote-me-1');
  });
});

describe('tx status (GET /tx/:id/status)', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('answers CONFIRMED/new with sizes, content type and price right after the receipt', async () => {
    const item = await signedItem(signers.arweave(), 'status please', [
      { name: 'App-Name', value: 'test' },
      { name: 'content-TYPE', value: 'text/plain' },
      { name: 'Content-Type', value: 'image/png' },
    ]);
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    for (const path of [`/tx/${item.id}/status`, `/v1/tx/${item.id}/status`]) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('public, max-age=15');
      const raw = item.getRaw().length;
      const start = item.getStartOfData();
      expect(await res.json()).to.deep.equal({
        status: 'CONFIRMED',
        info: 'new',
        winc: '0',
        rawContentLength: raw,
        payloadContentType: 'text/plain',
        payloadDataStart: start,
        payloadContentLength: raw - start,
      });
    }
  });

  it("answers 404 TX doesn't exist for an unknown or malformed id", async () => {
    for (const id of ['A'.repeat(43), 'short', '..%2F..%2Fetc%2Fpasswd']) {
      const res = await fetch(`${service.url}/tx/${id}/status`);
      expect(res.status).to.equal(404);
      expect(res.statusText).to.equal("TX doesn't exist");
      expect(await res.text()).to.equal("TX doesn't exist");
    }
  });
});
