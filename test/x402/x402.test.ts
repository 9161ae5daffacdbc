import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { getAddress, type Hex } from 'viem';
import type { PaymentRequirements } from 'x402/types';
import { settleResponseFromHeader } from 'x402/types';
import { wrapFetchWithPayment } from 'x402-fetch';
import { startTestService, type TestService } from '../support/testService.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { deployTestUsdc, type TestUsdc } from '../support/testUsdc.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { BASE_SEPOLIA_CHAIN_ID, decodeHeader, payerWallet, paymentHeader, type PayerWallet } from './support.js';
import { usdcForWinc, wincForUsdc } from '../../src/app/x402/pricing.js';

const FREE = 100;
const WINC_PER_BYTE = 1000n;
/** winc per USDC: a price of P winc costs ceil(P × 10^6 / 3×10^9) atomic units, so rounding shows */
const WINC_PER_USDC = 3_000_000_000n;
const usdcOf = (bytes: number) => usdcForWinc(BigInt(bytes) * WINC_PER_BYTE, WINC_PER_USDC);
/** what stays on the payer's account after paying for `bytes`: the USDC paid is credited, rounded down, the price charged */
const leftOver = (bytes: number) => wincForUsdc(usdcOf(bytes), WINC_PER_USDC) - BigInt(bytes) * WINC_PER_BYTE;

describe('x402 pay-per-upload (ganache with an EIP-3009 USDC, x402 verify and settle)', function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let usdc: TestUsdc;
  let service: TestService;
  let keyDir: string;
  let payer: PayerWallet;
  let payTo: Hex;

  before(async () => {
    chain = await startLocalChain({ chainId: BASE_SEPOLIA_CHAIN_ID });
    const [deployer, client, settler, recipient] = chain.accounts;
    usdc = await deployTestUsdc(chain.url, BASE_SEPOLIA_CHAIN_ID, deployer!.privateKey as Hex);
    payer = payerWallet(chain.url, client!.privateKey as Hex);
    payTo = getAddress(recipient!.address);
    await usdc.mint(payer.account.address, 100_000_000n);
    keyDir = await mkdtemp(join(tmpdir(), 'x402-key-'));
    await writeFile(join(keyDir, 'settler.key'), `${settler!.privateKey}\n`, { mode: 0o600 });
    await writeFile(join(keyDir, 'items.key'), chain.accounts[5]!.privateKey, { mode: 0o600 });
    service = await startTestService({
      FREE_UPLOAD_LIMIT_BYTES: String(FREE),
      PRICE_WINC_PER_BYTE: WINC_PER_BYTE.toString(),
      X402_WINC_PER_USDC: WINC_PER_USDC.toString(),
      X402_DATA_ITEM_KEY_FILE: join(keyDir, 'items.key'),
      X402_NETWORKS: JSON.stringify([
        { network: 'base-sepolia', chainId: BASE_SEPOLIA_CHAIN_ID, rpcUrl: chain.url, usdc: usdc.address, payTo, keyFile: join(keyDir, 'settler.key') },
      ]),
    });
  });
  after(async () => {
    await service?.close();
    await chain?.stop();
    if (keyDir) await rm(keyDir, { recursive: true, force: true });
  });

  const post = (path: string, body: Uint8Array, headers: Record<string, string> = {}) =>
    fetch(`${service.url}${path}`, { method: 'POST', body: asBody(body), headers: { 'content-type': 'application/octet-stream', ...headers } });
  const requirementsFor = async (path: string, item: Uint8Array): Promise<PaymentRequirements> => {
    const res = await post(path, item);
    expect(res.status).to.equal(402);
    return ((await res.json()) as { accepts: PaymentRequirements[] }).accepts[0]!;
  };
  const balanceOf = async (address: string) =>
    ((await (await fetch(`${service.url}/account/balance/ethereum?address=${address}`)).json()) as { balance: string }).balance;
  const itemStored = async (id: string) => (await fetch(`${service.url}/tx/${id}/status`)).status === 200;

  describe('POST `/x402/data-item/signed` (the reference suite, tests/router.int.test.ts)', () => {
    it('with no valid x402 payment header returns 402 with requirements for payment header', async () => {
      const item = (await signedItem(signers.arweave(), new Uint8Array(1000))).getRaw();
      const res = await post('/v1/x402/data-item/signed', item);
      expect(res.status).to.equal(402);
      const body = (await res.json()) as { x402Version: number; accepts: PaymentRequirements[]; error: string };
      expect(body.x402Version).to.equal(1);
      expect(body.error).to.equal('X-Payment header is required for x402 uploads.');
      expect(body.accepts).to.deep.equal([
        {
          scheme: 'exact',
          network: 'base-sepolia',
          maxAmountRequired: usdcOf(item.byteLength).toString(),
          resource: `${service.url}/v1/x402/data-item/signed`,
          description: `Cost to upload ${item.byteLength} bytes`,
          mimeType: 'application/octet-stream',
          payTo,
          maxTimeoutSeconds: 300,
          asset: usdc.address,
          extra: { name: 'USD Coin', version: '2' },
        },
      ]);
    });

    it('rejects upload without Content-Length when X-PAYMENT header is present', async () => {
      const item = (await signedItem(signers.arweave(), new Uint8Array(1000))).getRaw();
      const requirements = await requirementsFor('/v1/x402/data-item/signed', item);
      const header = await paymentHeader(payer, requirements);
      // a streamed body: fetch sends it chunked, without content-length
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(item));
          controller.close();
        },
      });
      const res = await fetch(`${service.url}/v1/x402/data-item/signed`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/octet-stream', 'x-payment': header },
        duplex: 'half',
      } as RequestInit);
      expect(res.status).to.equal(411);
      expect(await res.text()).to.equal('Missing Content Length. Content Length is required for x402 upload.');
    });

    it('with a x402 payment header containing insufficient payment amount for the content length returns 402', async () => {
      const item = (await signedItem(signers.arweave(), new Uint8Array(1000))).getRaw();
      const requirements = await requirementsFor('/v1/x402/data-item/signed', item);
      const short = await paymentHeader(payer, requirements, (a) => ({ value: (BigInt(a.value) - 1n).toString() }));
      const before = await usdc.balanceOf(payer.account.address);
      const res = await post('/v1/x402/data-item/signed', item, { 'x-payment': short });
      expect(res.status).to.equal(402);
      expect(((await res.json()) as { error: string }).error).to.equal('invalid_exact_evm_payload_authorization_value');
      expect(await usdc.balanceOf(payer.account.address)).to.equal(before);
    });
  });

  describe('POST `/x402/data-item/unsigned` (the reference suite, tests/router.int.test.ts)', () => {
    const data = new Uint8Array(1000).fill(7);
    it('with no valid x402 payment header returns 402 with requirements for payment header', async () => {
      const res = await post('/v1/x402/data-item/unsigned', data);
      expect(res.status).to.equal(402);
      const body = (await res.json()) as { x402Version: number; accepts: PaymentRequirements[]; error: string };
      expect(body.x402Version).to.equal(1);
      expect(body.error).to.equal('X-Payment header is required for x402 uploads.');
      const requirements = body.accepts[0]!;
      expect(requirements.resource).to.equal(`${service.url}/v1/x402/data-item/unsigned`);
      expect(requirements.mimeType).to.equal('application/octet-stream');
      expect(requirements.maxTimeoutSeconds).to.equal(300);
      // the price of the item the data becomes: its header (Ethereum signature and key, tags) and the data
      const itemBytes = Number(requirements.description.match(/\d+/)![0]);
      expect(itemBytes).to.be.greaterThan(data.byteLength + 2 + 65 + 65);
      expect(requirements.maxAmountRequired).to.equal(usdcOf(itemBytes).toString());
    });

    it('rejects upload without Content-Length when X-PAYMENT header is present', async () => {
      const requirements = await requirementsFor('/v1/x402/data-item/unsigned', data);
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(data));
          controller.close();
        },
      });
      const res = await fetch(`${service.url}/v1/x402/data-item/unsigned`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/octet-stream', 'x-payment': await paymentHeader(payer, requirements) },
        duplex: 'half',
      } as RequestInit);
      expect(res.status).to.equal(411);
      expect(await res.text()).to.equal('Missing Content Length. Content Length is required for raw data post.');
    });

    it('with a x402 payment header containing insufficient payment amount for the content length returns 402', async () => {
      const requirements = await requirementsFor('/v1/x402/data-item/unsigned', data);
      const short = await paymentHeader(payer, requirements, (a) => ({ value: (BigInt(a.value) - 1n).toString() }));
      const res = await post('/v1/x402/data-item/unsigned', data, { 'x-payment': short });
      expect(res.status).to.equal(402);
      expect(((await res.json()) as { error: string }).error).to.equal('invalid_exact_evm_payload_authorization_value');
    });

    it("makes paid raw data an item signed by the service's key, tagged from the headers and with the payer", async () => {
      const text = new TextEncoder().encode('hello x402 '.repeat(20));
      const headers = { 'content-type': 'text/plain', 'x-data-item-tags': JSON.stringify([{ name: 'App-Name', value: 'x402-test' }]) };
      const first = await fetch(`${service.url}/x402/data-item/unsigned`, { method: 'POST', body: asBody(text), headers });
      const requirements = ((await first.json()) as { accepts: PaymentRequirements[] }).accepts[0]!;
      const before = await usdc.balanceOf(payer.account.address);
      const res = await fetch(`${service.url}/x402/data-item/unsigned`, {
        method: 'POST',
        body: asBody(text),
        headers: { ...headers, 'x-payment': await paymentHeader(payer, requirements) },
      });
      expect(res.status).to.equal(200);
      const receipt = (await res.json()) as { id: string; winc: string };
      expect(await usdc.balanceOf(payer.account.address)).to.equal(before - BigInt(requirements.maxAmountRequired));
      const header = (await (await fetch(`${service.url}/tx/${receipt.id}`)).json()) as {
        signatureType: number;
        tags: { name: string; value: string }[];
        rawContentLength: number;
      };
      expect(header.signatureType).to.equal(3);
      expect(header.tags).to.deep.equal([
        { name: 'Content-Type', value: 'text/plain' },
        { name: 'Data-Item-Authority', value: 'Permaweb Upload Service' },
        { name: 'App-Name', value: 'x402-test' },
        { name: 'X402-Payer-Address', value: payer.account.address },
      ]);
      expect(`Cost to upload ${header.rawContentLength} bytes`).to.equal(requirements.description);
      expect(receipt.winc).to.equal((BigInt(header.rawContentLength) * WINC_PER_BYTE).toString());
      const payload = await fetch(`${service.url}/${receipt.id}`);
      expect(payload.headers.get('content-type')).to.match(/^text\/plain/);
      expect(new Uint8Array(await payload.arrayBuffer())).to.deep.equal(text);
    });
  });

  describe('paying an upload', () => {
    it('settles the exact price on chain, credits it to the payer and answers the receipt with X-PAYMENT-RESPONSE', async () => {
      const data = await signedItem(signers.arweave(), new Uint8Array(1200));
      const item = data.getRaw();
      const requirements = await requirementsFor('/x402/data-item/signed', item);
      const header = await paymentHeader(payer, requirements);
      const { authorization } = decodeHeader(header).payload;
      const [payerBefore, payToBefore] = [await usdc.balanceOf(payer.account.address), await usdc.balanceOf(payTo)];
      const creditBefore = BigInt(await balanceOf(payer.account.address));
      const res = await post('/x402/data-item/signed', item, { 'x-payment': header });
      expect(res.status).to.equal(200);
      const receipt = (await res.json()) as { id: string; winc: string; x402PaymentTxId: string; mUSDCPaid: string };
      expect(receipt.id).to.equal(data.id);
      expect(receipt.winc).to.equal((BigInt(item.byteLength) * WINC_PER_BYTE).toString());
      expect(receipt.mUSDCPaid).to.equal(usdcOf(item.byteLength).toString());
      expect(receipt.x402PaymentTxId).to.match(/^0x[0-9a-f]{64}$/);
      const settlement = settleResponseFromHeader(res.headers.get('x-payment-response')!);
      expect(settlement).to.include({ success: true, transaction: receipt.x402PaymentTxId, network: 'base-sepolia' });
      expect(await usdc.balanceOf(payer.account.address)).to.equal(payerBefore - usdcOf(item.byteLength));
      expect(await usdc.balanceOf(payTo)).to.equal(payToBefore + usdcOf(item.byteLength));
      expect(await usdc.authorizationState(payer.account.address, authorization.nonce as Hex)).to.equal(true);
      // credited what the USDC paid is worth (rounded down) and charged the price: the rounding stays
      expect(leftOver(item.byteLength) < WINC_PER_USDC / 10n ** 6n, 'less than one atomic unit is worth').to.equal(true);
      expect(await balanceOf(payer.account.address)).to.equal((creditBefore + leftOver(item.byteLength)).toString());
      expect(await itemStored(data.id)).to.equal(true);
    });

    it('refuses the same X-PAYMENT sent again with another item: nothing paid twice, nothing stored', async () => {
      const first = (await signedItem(signers.arweave(), new Uint8Array(1000))).getRaw();
      const requirements = await requirementsFor('/x402/data-item/signed', first);
      const header = await paymentHeader(payer, requirements);
      expect((await post('/x402/data-item/signed', first, { 'x-payment': header })).status).to.equal(200);
      const second = await signedItem(signers.arweave(), new Uint8Array(1000));
      const before = await usdc.balanceOf(payer.account.address);
      const res = await post('/x402/data-item/signed', second.getRaw(), { 'x-payment': header });
      expect(res.status).to.equal(402);
      expect(((await res.json()) as { error: string }).error).to.equal('authorization already used');
      expect(await usdc.balanceOf(payer.account.address)).to.equal(before);
      expect(await itemStored(second.id)).to.equal(false);
    });

    it('answers a re-sent paid item 202 with its receipt, and does not take its payment', async () => {
      const data = await signedItem(signers.arweave(), new Uint8Array(1000));
      const requirements = await requirementsFor('/x402/data-item/signed', data.getRaw());
      const res = await post('/x402/data-item/signed', data.getRaw(), { 'x-payment': await paymentHeader(payer, requirements) });
      const { x402PaymentTxId: _tx, mUSDCPaid: _paid, ...receipt } = (await res.json()) as Record<string, unknown>;
      const again = await paymentHeader(payer, requirements);
      const before = await usdc.balanceOf(payer.account.address);
      const resent = await post('/x402/data-item/signed', data.getRaw(), { 'x-payment': again });
      expect(resent.status).to.equal(202);
      expect(await resent.json()).to.deep.equal(receipt);
      expect(await usdc.balanceOf(payer.account.address)).to.equal(before);
      expect(await usdc.authorizationState(payer.account.address, decodeHeader(again).payload.authorization.nonce as Hex)).to.equal(false);
    });
  });

  describe('refused payments: 402, nothing stored, nothing paid', () => {
    const refused = async (
      change: Parameters<typeof paymentHeader>[2],
      after: Parameters<typeof paymentHeader>[3],
      error: string,
      alter?: (r: PaymentRequirements) => PaymentRequirements,
    ) => {
      const data = await signedItem(signers.arweave(), new Uint8Array(1000));
      const requirements = await requirementsFor('/x402/data-item/signed', data.getRaw());
      const header = await paymentHeader(payer, alter ? alter(requirements) : requirements, change, after);
      const before = await usdc.balanceOf(payer.account.address);
      const res = await post('/x402/data-item/signed', data.getRaw(), { 'x-payment': header });
      expect(res.status).to.equal(402);
      expect(((await res.json()) as { error: string }).error).to.equal(error);
      expect(await usdc.balanceOf(payer.account.address)).to.equal(before);
      expect(await itemStored(data.id)).to.equal(false);
    };

    it('a forged signature (the authorization changed after signing)', () =>
      refused(
        undefined,
        (p) => {
          const payload = p.payload as { authorization: { value: string } };
          return { ...p, payload: { ...payload, authorization: { ...payload.authorization, value: '999999999' } } };
        },
        'invalid_exact_evm_payload_signature',
      ));
    it('an expired authorization', () =>
      refused((a) => ({ validBefore: String(Math.floor(Date.now() / 1000) - 1) }), undefined, 'invalid_exact_evm_payload_authorization_valid_before'));
    it('an authorization for another asset', () =>
      refused(undefined, undefined, 'invalid_exact_evm_payload_signature', (r) => ({ ...r, asset: getAddress(`0x${'11'.repeat(20)}`) })));
    it('a payment for another network', () => refused(undefined, (p) => ({ ...p, network: 'base' }), 'Payment network mismatch'));
    it('a payment to another recipient', () =>
      refused(() => ({ to: getAddress(`0x${'22'.repeat(20)}`) }), undefined, 'invalid_exact_evm_payload_recipient_mismatch'));
    it('an amount one unit short', () =>
      refused((a) => ({ value: (BigInt(a.value) - 1n).toString() }), undefined, 'invalid_exact_evm_payload_authorization_value'));
  });

  describe('real client', () => {
    it("pays an upload end to end with x402-fetch's wrapFetchWithPayment and a viem wallet", async () => {
      const data = await signedItem(signers.arweave(), new Uint8Array(2000));
      const fetchWithPayment = wrapFetchWithPayment(fetch, payer as never, 10n ** 6n);
      const before = await usdc.balanceOf(payer.account.address);
      const res = await fetchWithPayment(`${service.url}/v1/x402/data-item/signed`, {
        method: 'POST',
        body: asBody(data.getRaw()),
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { id: string }).id).to.equal(data.id);
      expect(await usdc.balanceOf(payer.account.address)).to.equal(before - usdcOf(data.getRaw().byteLength));
    });
  });
});
