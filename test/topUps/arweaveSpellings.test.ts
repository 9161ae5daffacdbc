import { createHash } from 'node:crypto';
import { expect } from 'chai';
import Arweave from 'arweave';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from '../support/arlocal.js';
import { startDecodingGateway, type DecodingGateway } from '../support/decodingGateway.js';
import { startTestService, type TestService } from '../support/testService.js';
import { arweaveJwk } from '../support/items.js';
import { otherSpellings } from '../support/idSpellings.js';
import { createArweaveTransfers } from '../../src/adapters/gateway/arweaveTransfers.js';
import { GatewayRequestError } from '../../src/ports/gatewayErrors.js';

const CONFIRMATIONS = 2;
const AR = 10n ** 12n;
const USER = createHash('sha256').update(Buffer.from(arweaveJwk.n, 'base64url')).digest('base64url');

/**
 * An AR transaction id has 4 spellings (the spare bits of its last character), and a gateway that
 * decodes ids (as Arweave nodes do: see decodingGateway.ts) answers each of them with the same
 * transfer. One transfer is credited once, whatever spellings it is claimed in.
 */
describe('top-ups in AR through a gateway that decodes ids: the other spellings of a transaction id', function () {
  this.timeout(120_000);
  let arlocal: Arlocal;
  let gateway: DecodingGateway;
  let service: TestService;
  let arweave: Arweave;

  before(async () => {
    arlocal = await startArlocal();
    gateway = await startDecodingGateway(arlocal.url);
    service = await startTestService({
      GATEWAY_URL: gateway.url,
      ...ARLOCAL_HEIGHT_SETTINGS,
      TOPUP_ARWEAVE_CONFIRMATIONS: String(CONFIRMATIONS),
      TOPUP_CHECK_INTERVAL_MS: '86400000',
    });
    const url = new URL(arlocal.url);
    arweave = new Arweave({ host: url.hostname, port: Number(url.port), protocol: 'http' });
    await arlocal.mint(USER, (100n * AR).toString());
  });
  after(async () => {
    await service?.close();
    await gateway?.close();
    await arlocal?.stop();
  });

  async function send(winston: bigint): Promise<string> {
    const tx = await arweave.createTransaction({ target: service.walletAddress, quantity: winston.toString(), data: '' }, arweaveJwk);
    await arweave.transactions.sign(tx, arweaveJwk);
    expect((await arweave.transactions.post(tx)).status).to.equal(200);
    return tx.id;
  }
  const claim = (txId: string) =>
    fetch(`${service.url}/account/balance/arweave`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_id: txId }) });
  const balance = async () => BigInt(((await (await fetch(`${service.url}/account/balance/arweave?address=${USER}`)).json()) as { balance: string }).balance);

  it('a confirmed 1 AR transfer is credited once: its other three spellings are Invalid transaction', async () => {
    const before = await balance();
    const txId = await send(AR);
    await arlocal.mine(1 + CONFIRMATIONS);
    // the gateway answers every spelling with the transaction (arlocal itself only the canonical one)
    for (const spelled of otherSpellings(txId)) {
      expect(((await (await fetch(`${gateway.url}/tx/${spelled}`)).json()) as { id: string }).id, spelled).to.equal(txId);
      expect((await fetch(`${arlocal.url}/tx/${spelled}`)).status, spelled).to.equal(404);
    }
    expect((await claim(txId)).status).to.equal(200);
    for (const spelled of otherSpellings(txId)) {
      const answer = await claim(spelled);
      expect([answer.status, await answer.text()], spelled).to.deep.equal([400, 'Invalid transaction']);
    }
    expect(await balance()).to.equal(before + AR);
  });

  it('claimed first in another spelling, it is credited under its canonical id, and every spelling after is refused', async () => {
    const before = await balance();
    const txId = await send(2n * AR);
    await arlocal.mine(1 + CONFIRMATIONS);
    const [first, ...rest] = otherSpellings(txId);
    const answer = await claim(first!);
    expect(answer.status).to.equal(200);
    expect(((await answer.json()) as { creditedTransaction: { transactionId: string } }).creditedTransaction.transactionId).to.equal(txId);
    for (const spelled of [txId, ...rest]) expect((await claim(spelled)).status, spelled).to.equal(400);
    expect(await balance()).to.equal(before + 2n * AR);
  });

  it('a pending claim blocks the other spellings: the pass credits the transfer once', async () => {
    const before = await balance();
    const txId = await send(3n * AR);
    const spellings = otherSpellings(txId);
    const first = await claim(spellings[2]!);
    expect([first.status, ((await first.json()) as { confirmed: boolean }).confirmed]).to.deep.equal([200, false]);
    for (const spelled of [txId, spellings[0]!, spellings[1]!]) expect((await claim(spelled)).status, spelled).to.equal(400);
    await arlocal.mine(1 + CONFIRMATIONS);
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 1, pending: 0, expired: 0 });
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 0, expired: 0 });
    expect(await balance()).to.equal(before + 3n * AR);
  });

  it('the adapter asks with the canonical id only, and refuses a header that names another transaction than the one asked', async () => {
    const txId = await send(1000n);
    const other = await send(2000n);
    const transfers = createArweaveTransfers({ gatewayUrl: gateway.url, timeoutMs: 10_000 });
    expect((await transfers.transfer(txId))?.txId).to.equal(txId);
    for (const spelled of otherSpellings(txId)) expect(await transfers.transfer(spelled), spelled).to.equal(undefined);
    // a gateway that answers the header of `other` when asked for `txId`
    const swapping: typeof fetch = (input, init) => fetch(String(input).replace(`/tx/${txId}`, `/tx/${other}`), init);
    const error = await createArweaveTransfers({ gatewayUrl: gateway.url, timeoutMs: 10_000, fetch: swapping })
      .transfer(txId)
      .catch((e: unknown) => e);
    expect(GatewayRequestError.is(error), String(error)).to.equal(true);
  });
});
