import { expect } from 'chai';
import Arweave from 'arweave';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { isFundsRefusal } from '../../src/adapters/gateway/postAnswers.js';
import { GatewayRejected } from '../../src/ports/gatewayErrors.js';
import type { ArweaveGateway, TransactionHeader } from '../../src/ports/gateway.js';
import { arweaveAddress } from '../../src/wallet/address.js';
import { loadTestJwk } from '../fixtures/testWallet.js';
import { startArlocal, type Arlocal } from '../support/arlocal.js';

const jwk = loadTestJwk();

/** The service wallet's balance, and a post refused for its funds, as arlocal answers them. */
describe('gateway client: the wallet balance and refusals for funds (arlocal)', () => {
  let arlocal: Arlocal;
  let gateway: ArweaveGateway;
  const address = arweaveAddress(jwk.n);

  beforeEach(async () => {
    arlocal = await startArlocal();
    gateway = createArweaveGateway({ gatewayUrl: arlocal.url, timeoutMs: 10_000 });
  });
  afterEach(() => arlocal.stop());

  it('reads a wallet the network never saw as 0 winston, and a minted one as what was minted', async () => {
    expect(await gateway.walletBalance(address)).to.equal(0n);
    await arlocal.mint(address, 123_456_789_012_345n);
    expect(await gateway.walletBalance(address)).to.equal(123_456_789_012_345n);
    // not an address: never sent to the gateway
    await gateway.walletBalance('../info').then(
      () => expect.fail('resolved'),
      (error: unknown) => expect(error).to.be.instanceOf(RangeError),
    );
  });

  it('says a post refused because the wallet cannot pay the reward is about funds', async () => {
    const data = Buffer.alloc(1_000, 7);
    const arweave = Arweave.init({});
    const tx = await arweave.createTransaction({ data, last_tx: await gateway.anchor(), reward: String(await gateway.price(data.byteLength)) }, jwk);
    await arweave.transactions.sign(tx, jwk);
    const header = { ...tx.toJSON(), format: 2, data: '' } as unknown as TransactionHeader;
    const refusal = await gateway.postTransaction(header).then(
      () => expect.fail('an unfunded wallet posted'),
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(GatewayRejected);
    expect(refusal).to.include({ status: 410, about: 'funds' });
  });

  it('tells refusals about funds from refusals of the transaction', () => {
    expect(isFundsRefusal({ status: 410, text: '{"code":410,"msg":"You don\'t have enough tokens"}' })).to.equal(true);
    expect(isFundsRefusal({ status: 400, text: 'Waiting transactions exceed balance for wallet.' })).to.equal(true);
    expect(isFundsRefusal({ status: 400, text: 'Transaction verification failed.' })).to.equal(false);
    expect(isFundsRefusal({ status: 400, text: '{"error":"invalid_proof"}' })).to.equal(false);
    // "not now" answers are retried, never refusals
    expect(isFundsRefusal({ status: 429, text: 'insufficient balance' })).to.equal(false);
    expect(isFundsRefusal({ status: 503, text: 'overspend' })).to.equal(false);
  });
});
