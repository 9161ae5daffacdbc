import { request } from 'node:http';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { nativeAddress, toChecksumAddress } from '../../src/verify/index.js';

const FREE = 1000;
const RATE = 10n; // winc per byte
const meta = { correlationId: 'test' };

/** the native (payer) address of an ethereum-signed item (derivation tested against known vectors in test/verify) */
const ethAddress = (item: DataItem) => nativeAddress(3, item.rawOwner);

async function upload(service: TestService, item: DataItem, headers: Record<string, string> = {}) {
  const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()), headers });
  return { status: res.status, statusText: res.statusText, body: await res.text() };
}

async function balance(service: TestService, address: string) {
  const res = await fetch(`${service.url}/v1/account/balance/${address}`);
  expect(res.status).to.equal(200);
  return res.json();
}

async function credit(service: TestService, address: string, winc: bigint) {
  const { position } = await service.accounts.execute({ type: 'Credit', data: { address, winc, creditId: `${address}:${winc}`, now: Date.now() } }, meta);
  await service.projections.waitFor(position!, 5000);
}

describe('payments on single uploads', function () {
  this.timeout(120_000);
  let service: TestService;
  beforeEach(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: String(RATE) });
  });
  afterEach(() => service.close());

  it('answers 402 Insufficient balance to an unfunded owner above the free limit, and 200 at the limit', async () => {
    const signer = signers.ethereum();
    const over = await upload(service, await itemOfSize(signer, FREE + 1));
    expect(over).to.deep.equal({ status: 402, statusText: 'Insufficient balance', body: 'Insufficient balance' });
    const atLimit = await itemOfSize(signer, FREE);
    const ok = await upload(service, atLimit);
    expect(ok.status).to.equal(200);
    expect(JSON.parse(ok.body).winc).to.equal('0');
  });

  it('charges exactly the price once credited: receipt, status and balance agree', async () => {
    const signer = signers.ethereum();
    const item = await itemOfSize(signer, 5000);
    const owner = ethAddress(item);
    expect((await upload(service, item)).status).to.equal(402);
    await credit(service, owner, 60_000n);
    const ok = await upload(service, item);
    expect(ok.status).to.equal(200);
    expect(JSON.parse(ok.body).winc).to.equal('50000');
    const status = await (await fetch(`${service.url}/tx/${item.id}/status`)).json();
    expect(status.winc).to.equal('50000');
    expect(await balance(service, owner)).to.deep.equal({
      address: owner,
      winc: '10000',
      creditedWinc: '60000',
      spentWinc: '50000',
      reservedWinc: '0',
      givenApprovals: [],
    });
  });

  it('lets exactly 7 of 20 racing uploads pass when the credits cover 7, and ends at the exact remainder', async () => {
    const signer = signers.ethereum();
    const items = await Promise.all(Array.from({ length: 20 }, () => itemOfSize(signer, 2000)));
    const owner = ethAddress(items[0]!);
    await credit(service, owner, 7n * 20_000n + 12_345n);
    const answers = await Promise.all(items.map((item) => upload(service, item)));
    expect(answers.filter((a) => a.status === 200)).to.have.length(7);
    expect(answers.filter((a) => a.status === 402)).to.have.length(13);
    expect((await balance(service, owner)).winc).to.equal('12345');
  });

  it('answers 200 and 202 with the same receipt, charging once, when one paid item is sent twice at once by an owner funded for one', async () => {
    for (let round = 0; round < 8; round++) {
      // a new owner each round, credited exactly one price: 2000 bytes at 10 winc
      const item = await itemOfSize(signers.ethereum(), 2000);
      const owner = ethAddress(item);
      await credit(service, owner, 20_000n);
      const answers = await Promise.all([upload(service, item), upload(service, item)]);
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, `round ${round}: ${answers.map((a) => `${a.status} ${a.body.slice(0, 30)}`).join(' | ')}`).to.deep.equal([200, 202]);
      const [ok, exists] = answers[0]!.status === 200 ? answers : [answers[1]!, answers[0]!];
      expect(exists!.statusText).to.equal('Data Item Exists');
      expect(JSON.parse(exists!.body)).to.deep.equal(JSON.parse(ok!.body));
      expect(await balance(service, owner)).to.include({ winc: '0', spentWinc: '20000', reservedWinc: '0' });
    }
  });

  it('answers 202 with the original receipt to a paid item sent again once its owner has nothing left, and charges nothing more', async () => {
    const item = await itemOfSize(signers.ethereum(), 2000);
    const owner = ethAddress(item);
    await credit(service, owner, 20_000n);
    const first = await upload(service, item);
    expect(first.status).to.equal(200);
    const again = await upload(service, item);
    expect({ status: again.status, statusText: again.statusText, receipt: JSON.parse(again.body) }).to.deep.equal({
      status: 202,
      statusText: 'Data Item Exists',
      receipt: JSON.parse(first.body),
    });
    expect(await balance(service, owner)).to.include({ winc: '0', spentWinc: '20000', reservedWinc: '0' });
  });

  it('leaves the balance unchanged when an upload fails verification', async () => {
    const signer = signers.ethereum();
    const item = await itemOfSize(signer, 3000);
    const owner = ethAddress(item);
    await credit(service, owner, 100_000n);
    const corrupted = Buffer.from(item.getRaw());
    corrupted[corrupted.length - 1]! ^= 0x80;
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(corrupted) });
    expect(res.status).to.equal(400);
    expect(await balance(service, owner)).to.include({ winc: '100000', reservedWinc: '0', spentWinc: '0' });
  });

  it('charges a payer listed in x-paid-by that approved the owner, and the owner otherwise', async () => {
    const payer = toChecksumAddress('0x' + '5'.repeat(40));
    const signer = signers.ethereum();
    const first = await itemOfSize(signer, 2000);
    const owner = ethAddress(first);
    await credit(service, payer, 100_000n);
    await credit(service, owner, 30_000n);

    // not approved yet: the owner pays
    expect((await upload(service, first, { 'x-paid-by': payer.toLowerCase() })).status).to.equal(200);
    expect((await balance(service, owner)).winc).to.equal('10000');

    const { position } = await service.accounts.execute(
      { type: 'Approve', data: { address: payer, approvedAddress: owner, winc: 25_000n, now: Date.now() } },
      meta,
    );
    await service.projections.waitFor(position!, 5000);
    const second = await itemOfSize(signer, 2000);
    expect((await upload(service, second, { 'x-paid-by': `junk, ${payer}` })).status).to.equal(200);
    expect(await balance(service, payer)).to.deep.include({ winc: '80000', spentWinc: '20000' });
    expect((await balance(service, payer)).givenApprovals).to.deep.equal([{ approvedAddress: owner, remainingWinc: '5000' }]);
    expect((await balance(service, owner)).winc).to.equal('10000');

    // the approval has 5000 left: the next one falls back to the owner, who cannot pay
    const third = await itemOfSize(signer, 2000);
    expect((await upload(service, third, { 'x-paid-by': payer })).status).to.equal(402);
  });

  it('refuses an unfunded owner with 402 as soon as the header is in, before the payload is sent', async () => {
    const item = await itemOfSize(signers.ethereum(), 4_000_000);
    const raw = item.getRaw();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${service.url}/tx`, { method: 'POST', headers: { 'content-length': raw.length } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.write(raw.subarray(0, 4096)); // the header and a little payload; the rest is never sent
    });
    expect(answer).to.deep.equal({ status: 402, body: 'Insufficient balance' });
  });

  it('answers 400 Invalid address for a balance of something that is not an address', async () => {
    const res = await fetch(`${service.url}/account/balance/not-an-address`);
    expect(res.status).to.equal(400);
    expect(await res.text()).to.equal('Invalid address');
  });
});
