import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { getAddress, type Hex } from 'viem';
import type { PaymentRequirements } from 'x402/types';
import { startTestService, type TestService } from '../support/testService.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { deployTestUsdc, type TestUsdc } from '../support/testUsdc.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { BASE_SEPOLIA_CHAIN_ID, decodeHeader, payerWallet, paymentHeader, type PayerWallet } from './support.js';
import { startFaultyRpc, type FaultyRpc } from './faultyRpc.js';

const WINC_PER_BYTE = 1000n;
const WINC_PER_USDC = 3_000_000_000n;
/** what stays on the payer's account after paying for `bytes`: the USDC paid credited (rounded down), the price charged */
const leftOver = (bytes: number) => {
  const price = BigInt(bytes) * WINC_PER_BYTE;
  return (((price * 10n ** 6n + WINC_PER_USDC - 1n) / WINC_PER_USDC) * WINC_PER_USDC) / 10n ** 6n - price;
};

describe('x402 settlement when the chain fails it (ganache behind a faulty RPC proxy)', function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let rpc: FaultyRpc;
  let usdc: TestUsdc;
  let service: TestService;
  let keyDir: string;
  let payer: PayerWallet;
  let poor: PayerWallet;

  before(async () => {
    chain = await startLocalChain({ chainId: BASE_SEPOLIA_CHAIN_ID });
    const [deployer, client, settler, recipient, other] = chain.accounts;
    usdc = await deployTestUsdc(chain.url, BASE_SEPOLIA_CHAIN_ID, deployer!.privateKey as Hex);
    payer = payerWallet(chain.url, client!.privateKey as Hex);
    poor = payerWallet(chain.url, other!.privateKey as Hex);
    await usdc.mint(payer.account.address, 100_000_000n);
    rpc = await startFaultyRpc(chain.url);
    keyDir = await mkdtemp(join(tmpdir(), 'x402-key-'));
    await writeFile(join(keyDir, 'settler.key'), settler!.privateKey, { mode: 0o600 });
    service = await startTestService({
      FREE_UPLOAD_LIMIT_BYTES: '100',
      PRICE_WINC_PER_BYTE: WINC_PER_BYTE.toString(),
      X402_WINC_PER_USDC: WINC_PER_USDC.toString(),
      X402_RPC_TIMEOUT_MS: '5000',
      X402_NETWORKS: JSON.stringify([
        {
          network: 'base-sepolia',
          chainId: BASE_SEPOLIA_CHAIN_ID,
          rpcUrl: rpc.url,
          usdc: usdc.address,
          payTo: getAddress(recipient!.address),
          keyFile: join(keyDir, 'settler.key'),
        },
      ]),
    });
  });
  afterEach(() => {
    rpc.fault = 'none';
  });
  after(async () => {
    await service?.close();
    await rpc?.close();
    await chain?.stop();
    if (keyDir) await rm(keyDir, { recursive: true, force: true });
  });

  const post = (body: Uint8Array, headers: Record<string, string> = {}) =>
    fetch(`${service.url}/x402/data-item/signed`, { method: 'POST', body: asBody(body), headers: { 'content-type': 'application/octet-stream', ...headers } });
  const requirementsFor = async (item: Uint8Array) => ((await (await post(item)).json()) as { accepts: PaymentRequirements[] }).accepts[0]!;
  const itemStored = async (id: string) => (await fetch(`${service.url}/tx/${id}/status`)).status === 200;
  const balanceOf = async (address: string) =>
    ((await (await fetch(`${service.url}/account/balance/ethereum?address=${address}`)).json()) as { balance: string }).balance;

  it('answers 402 Payment failed, stores and charges nothing, when the settlement transaction is never sent', async () => {
    const data = await signedItem(signers.arweave(), new Uint8Array(1000));
    const header = await paymentHeader(payer, await requirementsFor(data.getRaw()));
    const before = await usdc.balanceOf(payer.account.address);
    rpc.fault = 'refuseSend';
    const res = await post(data.getRaw(), { 'x-payment': header });
    expect([res.status, await res.text()]).to.deep.equal([402, 'Payment failed']);
    expect(await usdc.balanceOf(payer.account.address)).to.equal(before);
    expect(await itemStored(data.id)).to.equal(false);
    expect(await balanceOf(payer.account.address)).to.equal('0');
  });

  it('accepts the item when the settlement went through but its answer was lost (the chain says the authorization was used)', async () => {
    const data = await signedItem(signers.arweave(), new Uint8Array(1000));
    const header = await paymentHeader(payer, await requirementsFor(data.getRaw()));
    const before = await usdc.balanceOf(payer.account.address);
    rpc.fault = 'loseSendAnswer';
    const res = await post(data.getRaw(), { 'x-payment': header });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { id: string }).id).to.equal(data.id);
    const price = BigInt(data.getRaw().byteLength) * WINC_PER_BYTE;
    expect(await usdc.balanceOf(payer.account.address)).to.equal(before - (price * 10n ** 6n + WINC_PER_USDC - 1n) / WINC_PER_USDC);
    expect(await usdc.authorizationState(payer.account.address, decodeHeader(header).payload.authorization.nonce as Hex)).to.equal(true);
    expect(await balanceOf(payer.account.address)).to.equal(leftOver(data.getRaw().byteLength).toString());
  });

  it('answers 503 with Retry-After before reading the body when the RPC is down', async () => {
    const data = await signedItem(signers.arweave(), new Uint8Array(1000));
    const header = await paymentHeader(payer, await requirementsFor(data.getRaw()));
    rpc.fault = 'down';
    const res = await post(data.getRaw(), { 'x-payment': header });
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    expect(await itemStored(data.id)).to.equal(false);
  });

  it('leaves a settled payment credited to its payer when another upload of the same item is accepted first', async () => {
    const data = await signedItem(signers.arweave(), new Uint8Array(1000));
    const requirements = await requirementsFor(data.getRaw());
    const other = payerWallet(chain.url, chain.accounts[6]!.privateKey as Hex);
    await usdc.mint(other.account.address, 10_000_000n);
    const wallets = [payer, other];
    const before = await Promise.all(wallets.map(async (w) => [await usdc.balanceOf(w.account.address), BigInt(await balanceOf(w.account.address))] as const));
    const headers = await Promise.all(wallets.map((w) => paymentHeader(w, requirements)));
    const answers = await Promise.all(headers.map((h) => post(data.getRaw(), { 'x-payment': h })));
    expect(answers.map((r) => r.status).sort()).to.deep.equal([200, 202]);
    expect(await itemStored(data.id)).to.equal(true);
    // every USDC paid is on its payer's account, but for the one price charged: nothing is paid for nothing
    const price = BigInt(data.getRaw().byteLength) * WINC_PER_BYTE;
    let worth = 0n;
    let credits = 0n;
    for (const [i, w] of wallets.entries()) {
      worth += ((before[i]![0] - (await usdc.balanceOf(w.account.address))) * WINC_PER_USDC) / 10n ** 6n;
      credits += BigInt(await balanceOf(w.account.address)) - before[i]![1];
    }
    expect(worth - credits).to.equal(price);
  });

  it('pays once when a payer with funds for one upload pays two at once: the other is 402, not stored', async () => {
    const [a, b] = [await signedItem(signers.arweave(), new Uint8Array(1000)), await signedItem(signers.arweave(), new Uint8Array(1000))];
    const requirements = await requirementsFor(a.getRaw());
    await usdc.mint(poor.account.address, BigInt(requirements.maxAmountRequired));
    const headers = [await paymentHeader(poor, requirements), await paymentHeader(poor, requirements)];
    const answers = await Promise.all([post(a.getRaw(), { 'x-payment': headers[0]! }), post(b.getRaw(), { 'x-payment': headers[1]! })]);
    expect(answers.map((r) => r.status).sort()).to.deep.equal([200, 402]);
    expect([await itemStored(a.id), await itemStored(b.id)].filter(Boolean)).to.have.length(1);
    expect(await usdc.balanceOf(poor.account.address)).to.equal(0n);
    expect(await balanceOf(poor.account.address)).to.equal(leftOver(a.getRaw().byteLength).toString());
  });
});
