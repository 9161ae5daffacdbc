import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, testServiceConfig, TEST_BLOCK_HEIGHT, type TestService } from '../support/testService.js';
import { startService, type RunningService } from '../../src/service.js';
import { createLogger } from '../../src/log.js';
import { startFakePriceGateway, type FakePriceGateway } from '../pricing/fakePriceGateway.js';
import { expectContractError } from '../support/hostileService.js';
import { asBody, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { nativeAddress } from '../../src/verify/index.js';

const FREE = 1000;
const RATE = 10n; // winc per byte
const ETH_SERVICE = '0x0000000000000000000000000000000000000001';
const meta = { correlationId: 'test' };

const ethAddress = (item: DataItem) => nativeAddress(3, item.rawOwner);

async function get(service: TestService, path: string) {
  const res = await fetch(`${service.url}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

async function credit(service: TestService, address: string, winc: bigint) {
  const { position } = await service.accounts.execute({ type: 'Credit', data: { address, winc, creditId: `${address}:${winc}`, now: Date.now() } }, meta);
  await service.projections.waitFor(position!, 5000);
}

describe("prices and balances in the clients' shapes (GET /price/..., GET /account/balance/:token?address=)", function () {
  this.timeout(120_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: String(RATE), ADDRESS_ETHEREUM: ETH_SERVICE });
  });
  after(() => service.close());

  it('prices bytes × PRICE_WINC_PER_BYTE above the free limit and 0 up to it, as plain text, at the root (under /v1 the path is a token amount), for every token of /info', async () => {
    for (const prefix of [''])
      for (const token of ['arweave', 'ethereum']) {
        expect(await get(service, `${prefix}/price/${token}/${FREE + 1}`)).to.deep.equal({ status: 200, type: 'text/plain; charset=utf-8', body: '10010' });
        expect(await get(service, `${prefix}/price/${token}/${FREE}`)).to.deep.equal({ status: 200, type: 'text/plain; charset=utf-8', body: '0' });
        expect(await get(service, `${prefix}/price/${token}/0`)).to.deep.equal({ status: 200, type: 'text/plain; charset=utf-8', body: '0' });
      }
  });

  it("prices in turbo-sdk's { winc, adjustments, fees } at /price/bytes/:bytes", async () => {
    const res = await get(service, `/v1/price/bytes/123456`);
    expect(res.status).to.equal(200);
    expect(JSON.parse(res.body)).to.deep.equal({ winc: '1234560', adjustments: [], fees: [] });
    expect(JSON.parse((await get(service, `/price/bytes/${FREE}`)).body)).to.deep.equal({ winc: '0', adjustments: [], fees: [] });
  });

  it('quotes exactly what the upload of that many bytes is then charged', async () => {
    const item = await itemOfSize(signers.ethereum(), 5000);
    const raw = item.getRaw().length;
    const quoted = (await get(service, `/price/ethereum/${raw}`)).body;
    expect(quoted).to.equal((BigInt(raw) * RATE).toString());
    await credit(service, ethAddress(item), BigInt(quoted));
    const res = await fetch(`${service.url}/tx/ethereum`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status).to.equal(200);
    expect((await res.json()).winc).to.equal(quoted);
  });

  it('answers Invalid request to a size that is not a decimal byte count and Invalid token to a bad token', async () => {
    for (const path of ['/price/ethereum/12a', '/price/ethereum/-1', '/price/ethereum/99999999999999999', '/price/bytes/1.5']) {
      expect(await get(service, path), path).to.deep.equal({ status: 400, type: 'text/plain; charset=utf-8', body: 'Invalid request' });
    }
    expect(await get(service, '/price/Not_A_Token/10')).to.deep.equal({ status: 400, type: 'text/plain; charset=utf-8', body: 'Invalid token' });
  });

  it('answers the balance by token name and ?address= in the Irys and turbo shapes, and by address in its own shape', async () => {
    const payer = ethAddress(await itemOfSize(signers.ethereum(), 500));
    const approved = 'B'.repeat(43);
    await credit(service, payer, 777n);
    const { position } = await service.accounts.execute(
      { type: 'Approve', data: { address: payer, approvedAddress: approved, winc: 500n, expiresAt: Date.parse('2100-01-01T00:00:00Z'), now: Date.now() } },
      meta,
    );
    await service.projections.waitFor(position!, 5000);
    const tokenBody = {
      balance: '777',
      winc: '777',
      controlledWinc: '777',
      effectiveBalance: '777',
      givenApprovals: [{ payingAddress: payer, approvedAddress: approved, remainingWinc: '500', expirationDate: '2100-01-01T00:00:00.000Z' }],
      receivedApprovals: [],
    };
    for (const path of [`/account/balance/ethereum?address=${payer}`, `/v1/account/balance/ethereum?address=${payer.toLowerCase()}`]) {
      const res = await get(service, path);
      expect(res.status, path).to.equal(200);
      expect(JSON.parse(res.body), path).to.deep.equal(tokenBody);
    }
    const byAddress = await get(service, `/account/balance/${payer}`);
    expect(JSON.parse(byAddress.body)).to.deep.equal({
      address: payer,
      winc: '777',
      creditedWinc: '777',
      spentWinc: '0',
      reservedWinc: '0',
      givenApprovals: [{ approvedAddress: approved, remainingWinc: '500', expiresAt: '2100-01-01T00:00:00.000Z' }],
    });
    // an account never credited is zeros, by token as by address
    expect(JSON.parse((await get(service, `/account/balance/arweave?address=${'A'.repeat(43)}`)).body)).to.deep.equal({
      balance: '0',
      winc: '0',
      controlledWinc: '0',
      effectiveBalance: '0',
      givenApprovals: [],
      receivedApprovals: [],
    });
  });

  it('lists the approvals an address received while they are in force, and counts what they let it spend in effectiveBalance', async () => {
    const approved = 'R'.repeat(43);
    const [rich, poor] = ['P'.repeat(43), 'Q'.repeat(43)];
    await credit(service, rich, 10_000n);
    await credit(service, poor, 400n);
    const approve = async (payer: string, winc: bigint) => {
      const { position } = await service.accounts.execute(
        { type: 'Approve', data: { address: payer, approvedAddress: approved, winc, expiresAt: Date.parse('2100-01-01T00:00:00Z'), now: Date.now() } },
        meta,
      );
      await service.projections.waitFor(position!, 5000);
    };
    await approve(rich, 600n);
    await approve(poor, 600n);
    const read = async () => JSON.parse((await get(service, `/v1/account/balance/arweave?address=${approved}`)).body);
    const expirationDate = '2100-01-01T00:00:00.000Z';
    expect(await read()).to.deep.equal({
      balance: '0',
      winc: '0',
      controlledWinc: '0',
      // 600 from the rich payer's approval, the poor payer's 400 credits
      effectiveBalance: '1000',
      givenApprovals: [],
      receivedApprovals: [
        { payingAddress: rich, approvedAddress: approved, remainingWinc: '600', expirationDate },
        { payingAddress: poor, approvedAddress: approved, remainingWinc: '600', expirationDate },
      ],
    });
    const { position } = await service.accounts.execute({ type: 'Revoke', data: { address: rich, approvedAddress: approved, now: Date.now() } }, meta);
    await service.projections.waitFor(position!, 5000);
    const after = await read();
    expect(after.receivedApprovals).to.deep.equal([{ payingAddress: poor, approvedAddress: approved, remainingWinc: '600', expirationDate }]);
    expect(after.effectiveBalance).to.equal('400');
  });

  it('stops listing a received approval once it expires', async () => {
    const approved = 'E'.repeat(43);
    const payer = 'F'.repeat(43);
    await credit(service, payer, 5_000n);
    const expiresAt = Date.now() + 1_000;
    const { position } = await service.accounts.execute(
      { type: 'Approve', data: { address: payer, approvedAddress: approved, winc: 300n, expiresAt, now: Date.now() } },
      meta,
    );
    await service.projections.waitFor(position!, 5000);
    const read = async () => JSON.parse((await get(service, `/account/balance/arweave?address=${approved}`)).body);
    const first = await read();
    // read before the expiry (a busy machine may be later: then it is already gone, as below)
    if (Date.now() < expiresAt - 100) {
      expect(first.receivedApprovals).to.deep.equal([
        { payingAddress: payer, approvedAddress: approved, remainingWinc: '300', expirationDate: new Date(expiresAt).toISOString() },
      ]);
      expect(first.effectiveBalance).to.equal('300');
    }
    const deadline = Date.now() + 30_000;
    let answer = first;
    while (answer.receivedApprovals.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await read();
    }
    expect(Date.now()).to.be.at.least(expiresAt);
    expect(answer).to.deep.include({ effectiveBalance: '0', receivedApprovals: [] });
  });

  it("answers Invalid address to a token name without a valid ?address=, or with an address of another token's form", async () => {
    const invalid = { status: 400, type: 'text/plain; charset=utf-8', body: 'Invalid address' };
    expect(await get(service, '/account/balance/ethereum')).to.deep.equal(invalid);
    expect(await get(service, '/account/balance/ethereum?address=nope')).to.deep.equal(invalid);
    expect(await get(service, `/account/balance/solana?address=${'_'.repeat(43)}`)).to.deep.equal(invalid);
    expect(await get(service, `/account/balance/ethereum?address=${'A'.repeat(43)}`)).to.deep.equal(invalid);
  });
});

/**
 * Issue 34, finding 8: prices from the gateway (PRICING_SOURCE=gateway), asked by a hostile client.
 * A size no item can have is refused before the gateway is asked, and is no gateway failure; distinct
 * sizes from one client cost the gateway at most PRICE_LOOKUPS_BURST requests (the monotonic clock is
 * the test's and stands still: no look-up is regained meanwhile).
 */
describe('prices from the gateway, asked by a hostile client (issue 34)', function () {
  this.timeout(120_000);
  const CHUNK = 262_144;
  const BURST = 5;
  let gateway: FakePriceGateway;
  let service: RunningService;
  let dataDir: string;
  const warnings: string[] = [];

  before(async () => {
    gateway = await startFakePriceGateway({ answer: 'price', body: (bytes) => String((bytes / CHUNK) * 1000) }, { infoHeight: TEST_BLOCK_HEIGHT });
    dataDir = await mkdtemp(join(tmpdir(), 'upload-service-'));
    const config = testServiceConfig(dataDir, gateway.url, {
      PRICING_SOURCE: 'gateway',
      PRICE_MARGIN_PERCENT: '0',
      FREE_UPLOAD_LIMIT_BYTES: '0',
      PRICE_LOOKUPS_BURST: String(BURST),
      PRICE_LOOKUPS_PER_MINUTE: '1',
      LOG_LEVEL: 'warn',
    });
    service = await startService(
      config,
      createLogger(config.logLevel, (line) => warnings.push(line)),
      { clocks: { monotonic: () => 0 } },
    );
  });
  after(async () => {
    await service?.stop();
    await gateway?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers 400 Invalid request to a size past MAX_DATA_ITEM_SIZE without asking the gateway; the next price is the gateway's, nothing logged", async () => {
    // the largest item's price is asked: 8192 chunks
    expect(JSON.parse(await (await fetch(`${service.url}/price/bytes/2147483648`)).text())).to.deep.equal({ winc: '8192000', adjustments: [], fees: [] });
    for (const path of ['/price/bytes/9007199254740991', '/v1/price/bytes/2147483649', '/price/arweave/9007199254740991', '/price/ethereum/2147483649']) {
      const res = await fetch(`${service.url}${path}`);
      await expectContractError(res, 400, 'Invalid request');
    }
    expect(gateway.requests).to.equal(1);
    gateway.set({ answer: 'price', body: (bytes) => String((bytes / CHUNK) * 2000) });
    expect(await (await fetch(`${service.url}/price/arweave/${CHUNK + 1}`)).text()).to.equal('4000');
    expect(gateway.requested).to.deep.equal([8192 * CHUNK, 2 * CHUNK]);
    expect(warnings).to.deep.equal([]);
  });

  it('asks the gateway for at most PRICE_LOOKUPS_BURST distinct sizes of one client, then answers 429 with Retry-After; cached sizes still answer', async () => {
    const before = gateway.requests;
    // the previous test took 2 of the burst; 3 left, then refusals, on both routes
    const answers: { status: number; retryAfter: string | null }[] = [];
    for (let chunks = 10; chunks < 40; chunks++) {
      const res = await fetch(`${service.url}${chunks % 2 === 0 ? '/v1/price/bytes' : '/price/ethereum'}/${chunks * CHUNK}`);
      answers.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
      if (res.status === 429) await expectContractError(res, 429, 'Too Many Requests');
      else await res.text();
    }
    expect(gateway.requests - before).to.equal(BURST - 2);
    expect(answers.slice(0, BURST - 2)).to.deep.equal(Array.from({ length: BURST - 2 }, () => ({ status: 200, retryAfter: null })));
    expect(answers.slice(BURST - 2)).to.deep.equal(Array.from({ length: 30 - (BURST - 2) }, () => ({ status: 429, retryAfter: '60' })));
    // a size already priced costs no look-up
    expect(await (await fetch(`${service.url}/price/arweave/${10 * CHUNK - 5}`)).text()).to.equal('20000');
    expect(gateway.requests - before).to.equal(BURST - 2);
  });
});
