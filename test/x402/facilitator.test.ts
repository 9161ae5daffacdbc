import { expect } from 'chai';
import { getAddress, type Hex } from 'viem';
import { settleResponseFromHeader, type PaymentRequirements } from 'x402/types';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { createX402ChainReader } from '../../src/adapters/x402/settlement.js';
import { usdcForWinc, wincForUsdc } from '../../src/app/x402/pricing.js';
import { startTestService, type TestService } from '../support/testService.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { deployTestUsdc, type TestUsdc } from '../support/testUsdc.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { BASE_SEPOLIA_CHAIN_ID, decodeHeader, payerWallet, paymentHeader, type PayerWallet } from './support.js';
import { startFacilitator, type Facilitator } from './facilitator.js';

const WINC_PER_BYTE = 1000n;
const WINC_PER_USDC = 3_000_000_000n;

describe('x402 settled by a facilitator URL (a facilitator of x402/facilitator verify and settle, on ganache)', function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let usdc: TestUsdc;
  let facilitator: Facilitator;
  let service: TestService;
  let payer: PayerWallet;
  let payTo: Hex;
  let elsewhere: Hex;

  before(async () => {
    chain = await startLocalChain({ chainId: BASE_SEPOLIA_CHAIN_ID });
    const [deployer, client, settler, recipient, other] = chain.accounts;
    usdc = await deployTestUsdc(chain.url, BASE_SEPOLIA_CHAIN_ID, deployer!.privateKey as Hex);
    payer = payerWallet(chain.url, client!.privateKey as Hex);
    payTo = getAddress(recipient!.address);
    elsewhere = getAddress(other!.address);
    await usdc.mint(payer.account.address, 100_000_000n);
    facilitator = await startFacilitator(chain.url, BASE_SEPOLIA_CHAIN_ID, settler!.privateKey as Hex);
    service = await startTestService({
      FREE_UPLOAD_LIMIT_BYTES: '100',
      PRICE_WINC_PER_BYTE: WINC_PER_BYTE.toString(),
      X402_WINC_PER_USDC: WINC_PER_USDC.toString(),
      // no keyFile: the service holds no key, the facilitator settles
      X402_NETWORKS: JSON.stringify([
        { network: 'base-sepolia', chainId: BASE_SEPOLIA_CHAIN_ID, rpcUrl: chain.url, usdc: usdc.address, payTo, facilitatorUrl: facilitator.url },
      ]),
    });
  });
  afterEach(() => {
    facilitator.down = false;
    facilitator.beforeSettle = undefined;
  });
  after(async () => {
    await service?.close();
    await facilitator?.close();
    await chain?.stop();
  });

  const post = (body: Uint8Array, headers: Record<string, string> = {}) =>
    fetch(`${service.url}/x402/data-item/signed`, { method: 'POST', body: asBody(body), headers: { 'content-type': 'application/octet-stream', ...headers } });
  const requirementsFor = async (item: Uint8Array) => ((await (await post(item)).json()) as { accepts: PaymentRequirements[] }).accepts[0]!;
  const itemStored = async (id: string) => (await fetch(`${service.url}/tx/${id}/status`)).status === 200;
  const balanceOf = async (address: string) =>
    ((await (await fetch(`${service.url}/account/balance/ethereum?address=${address}`)).json()) as { balance: string }).balance;
  const price = (bytes: number) => BigInt(bytes) * WINC_PER_BYTE;

  it('pays an upload through the facilitator: it verifies and settles, its own key sends the transaction', async () => {
    const item = await signedItem(signers.arweave(), new Uint8Array(1000));
    const bytes = item.getRaw().byteLength;
    const header = await paymentHeader(payer, await requirementsFor(item.getRaw()));
    const [payerBefore, payToBefore] = [await usdc.balanceOf(payer.account.address), await usdc.balanceOf(payTo)];
    const calls = { ...facilitator.calls };
    const res = await post(item.getRaw(), { 'x-payment': header });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { id: string }).id).to.equal(item.id);
    const settled = settleResponseFromHeader(res.headers.get('x-payment-response')!);
    expect([settled.success, settled.network, settled.payer]).to.deep.equal([true, 'base-sepolia', payer.account.address]);
    const transaction = await payer.getTransaction({ hash: settled.transaction as Hex });
    expect(getAddress(transaction.from)).to.equal(facilitator.address);
    expect([facilitator.calls['/verify']! - (calls['/verify'] ?? 0), facilitator.calls['/settle']! - (calls['/settle'] ?? 0)]).to.deep.equal([1, 1]);
    const usdcPaid = usdcForWinc(price(bytes), WINC_PER_USDC);
    expect(await usdc.balanceOf(payer.account.address)).to.equal(payerBefore - usdcPaid);
    expect(await usdc.balanceOf(payTo)).to.equal(payToBefore + usdcPaid);
    expect(await itemStored(item.id)).to.equal(true);
    expect(await balanceOf(payer.account.address)).to.equal((wincForUsdc(usdcPaid, WINC_PER_USDC) - price(bytes)).toString());
  });

  it('answers 503 with Retry-After, stores and charges nothing, when the facilitator is down', async () => {
    const item = await signedItem(signers.arweave(), new Uint8Array(1000));
    const header = await paymentHeader(payer, await requirementsFor(item.getRaw()));
    const [usdcBefore, wincBefore] = [await usdc.balanceOf(payer.account.address), await balanceOf(payer.account.address)];
    facilitator.down = true;
    const res = await post(item.getRaw(), { 'x-payment': header });
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    expect(await itemStored(item.id)).to.equal(false);
    expect(await usdc.balanceOf(payer.account.address)).to.equal(usdcBefore);
    expect(await balanceOf(payer.account.address)).to.equal(wincBefore);
    expect(await usdc.authorizationState(payer.account.address, decodeHeader(header).payload.authorization.nonce as Hex)).to.equal(false);
  });

  it('answers 402 Payment failed, stores and charges nothing, when the facilitator answers that the settlement failed; the same authorization pays once funded', async () => {
    const item = await signedItem(signers.arweave(), new Uint8Array(1000));
    const header = await paymentHeader(payer, await requirementsFor(item.getRaw()));
    const wincBefore = await balanceOf(payer.account.address);
    let moved = 0n;
    // between the facilitator's verify and its settle the payer spends its USDC: x402's settle answers insufficient_funds
    facilitator.beforeSettle = async () => {
      moved = await usdc.balanceOf(payer.account.address);
      const tx = await payer.writeContract({ address: usdc.address, abi: usdc.abi, functionName: 'transfer', args: [elsewhere, moved] });
      await payer.waitForTransactionReceipt({ hash: tx });
    };
    const res = await post(item.getRaw(), { 'x-payment': header });
    expect([res.status, await res.text()]).to.deep.equal([402, 'Payment failed']);
    expect(await itemStored(item.id)).to.equal(false);
    expect(await balanceOf(payer.account.address)).to.equal(wincBefore);
    const { nonce } = decodeHeader(header).payload.authorization;
    expect(await usdc.authorizationState(payer.account.address, nonce as Hex)).to.equal(false);

    // the failure is recorded, so the authorization, never used, may pay once the payer has the USDC again
    await usdc.mint(payer.account.address, moved);
    const again = await post(item.getRaw(), { 'x-payment': header });
    expect(again.status).to.equal(200);
    expect(await usdc.authorizationState(payer.account.address, nonce as Hex)).to.equal(true);
  });

  it('leaves an audit against the chain with no findings: each settled payment credited once, the failed one never', async () => {
    const findings: Finding[] = [];
    const reader = await createX402ChainReader({ network: 'base-sepolia', chainId: BASE_SEPOLIA_CHAIN_ID, rpcUrl: chain.url, usdc: usdc.address }, 5000);
    const summary = await runAudit(
      {
        eventStore: service.eventStore,
        readStore: service.readStore,
        blobStore: service.blobStore,
        now: Date.now,
        x402: { chains: new Map([['base-sepolia', reader]]), graceMs: 0 },
      },
      (f) => findings.push(f),
    );
    expect(findings).to.deep.equal([]);
    // the first upload's, and the failed authorization that paid the second time (the one refused by a down facilitator never started)
    expect([summary.checked.x402Payments, summary.checked.x402InFlight]).to.deep.equal([2, 0]);
  });
});
