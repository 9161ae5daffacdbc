import { expect } from 'chai';
import Arweave from 'arweave';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { GatewayRejected } from '../../src/ports/gatewayErrors.js';
import type { ArweaveGateway, ChunkUpload, TransactionHeader } from '../../src/ports/gateway.js';
import { arweaveAddress } from '../../src/wallet/address.js';
import { loadTestJwk } from '../fixtures/testWallet.js';
import { startArlocal, type Arlocal } from '../support/arlocal.js';

const jwk = loadTestJwk();
/** 600 000 bytes: three chunks (256 KiB, 256 KiB, the rest), so the data goes up in several posts */
const DATA = Buffer.from(Array.from({ length: 600_000 }, (_, i) => i % 251));

interface Signed {
  header: TransactionHeader & Record<string, unknown>;
  chunks: ChunkUpload[];
}

/** A format-2 transaction of `data` signed by the test wallet, anchored and priced by the gateway. */
async function signedTransaction(gateway: ArweaveGateway, data: Buffer): Promise<Signed> {
  const arweave = Arweave.init({}); // signing needs no network: anchor and reward come from `gateway`
  const tx = await arweave.createTransaction({ data, last_tx: await gateway.anchor(), reward: String(await gateway.price(data.byteLength)) }, jwk);
  tx.addTag('Content-Type', 'application/octet-stream');
  await arweave.transactions.sign(tx, jwk);
  const chunks = tx.chunks!.chunks.map((_, index) => tx.getChunk(index, data));
  return { header: { ...tx.toJSON(), format: 2, data: '' }, chunks };
}

async function post(gateway: ArweaveGateway, { header, chunks }: Signed): Promise<void> {
  await gateway.postTransaction(header);
  for (const chunk of chunks) await gateway.postChunk(chunk);
}

describe('arweave gateway client against arlocal', () => {
  let arlocal: Arlocal;
  let gateway: ArweaveGateway;
  /** the hash of arlocal's newest block, as `GET /info` says */
  const newestBlock = async () => ((await (await fetch(`${arlocal.url}/info`)).json()) as { current: string }).current;

  beforeEach(async () => {
    arlocal = await startArlocal();
    gateway = createArweaveGateway({ gatewayUrl: arlocal.url, timeoutMs: 10_000 });
    await arlocal.mint(arweaveAddress(jwk.n), 10n ** 15n);
  });
  afterEach(() => arlocal.stop());

  it('prices data in winston as arlocal does: 65595508 per 1000 bytes, rounded', async () => {
    expect(await gateway.price(0)).to.equal(0n);
    expect(await gateway.price(1000)).to.equal(65_595_508n);
    expect(await gateway.price(600_000)).to.equal(39_357_304_800n);
  });

  it('answers a block hash of the chain as anchor: the only block, then one of the blocks mined that second', async () => {
    const genesis = await newestBlock();
    expect(await gateway.anchor()).to.equal(genesis);
    await arlocal.mine();
    // arlocal picks the newest block by a creation time kept in whole seconds, so blocks made in the
    // same second tie; it accepts any of the last 50 blocks as an anchor anyway.
    expect([genesis, await newestBlock()]).to.include(await gateway.anchor());
  });

  it('answers the current height, growing with each block mined', async () => {
    expect(await gateway.currentHeight()).to.equal(0);
    await arlocal.mine(2);
    expect(await gateway.currentHeight()).to.equal(2);
  });

  it('posts a transaction header and then its chunks, and arlocal serves the data back', async () => {
    const signed = await signedTransaction(gateway, DATA);
    expect(signed.chunks.length).to.equal(3);
    await post(gateway, signed);

    expect((await arlocal.data(signed.header.id)).equals(DATA)).to.equal(true);
    await arlocal.mine();
    expect((await arlocal.data(signed.header.id)).equals(DATA)).to.equal(true);
  });

  it('follows a transaction from not found to pending to confirmed, its confirmations growing with each block', async () => {
    const signed = await signedTransaction(gateway, DATA);
    const id = signed.header.id;
    expect(await gateway.transactionStatus(id)).to.deep.equal({ status: 'not_found' });

    await post(gateway, signed);
    expect(await gateway.transactionStatus(id)).to.deep.equal({ status: 'pending' });

    await arlocal.mine();
    const block = await newestBlock();
    // arlocal counts the block holding the transaction as 0 confirmations
    expect(await gateway.transactionStatus(id)).to.deep.equal({ status: 'confirmed', blockHeight: 1, confirmations: 0, blockHash: block });

    await arlocal.mine(3);
    expect(await gateway.transactionStatus(id)).to.deep.equal({ status: 'confirmed', blockHeight: 1, confirmations: 3, blockHash: block });
  });

  it('succeeds in posting a transaction and its chunks again, pending or confirmed, and the data stays the same', async () => {
    const signed = await signedTransaction(gateway, DATA);
    await post(gateway, signed);
    await post(gateway, signed);
    await arlocal.mine();
    await post(gateway, signed);

    expect(await gateway.transactionStatus(signed.header.id)).to.deep.include({ status: 'confirmed', blockHeight: 1 });
    expect((await arlocal.data(signed.header.id)).equals(DATA)).to.equal(true);
  });

  it('rejects a transaction whose signature does not cover its fields: 400 "Bad Request"', async () => {
    const { header } = await signedTransaction(gateway, DATA);
    const tampered = { ...header, reward: `${String(header.reward)}1` };
    const error = await gateway.postTransaction(tampered).catch((e: unknown) => e);

    expect(error).to.be.instanceOf(GatewayRejected);
    expect((error as GatewayRejected).status).to.equal(400);
    expect((error as GatewayRejected).body).to.equal('Bad Request');
    expect(await gateway.transactionStatus(header.id)).to.deep.equal({ status: 'not_found' });
  });

  it('rejects a transaction whose wallet cannot pay its reward: 410', async () => {
    await arlocal.stop();
    arlocal = await startArlocal(); // a chain where the test wallet was never funded
    gateway = createArweaveGateway({ gatewayUrl: arlocal.url, timeoutMs: 10_000 });
    const { header } = await signedTransaction(gateway, DATA);
    const error = await gateway.postTransaction(header).catch((e: unknown) => e);

    expect(error).to.be.instanceOf(GatewayRejected);
    expect((error as GatewayRejected).status).to.equal(410);
    expect(JSON.parse((error as GatewayRejected).body)).to.deep.equal({ code: 410, msg: "You don't have enough tokens" });
  });
});
