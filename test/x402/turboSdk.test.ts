import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { TurboFactory } from '@ardrive/turbo-sdk';
import { getAddress, type Hex } from 'viem';
import { startTestService, type TestService } from '../support/testService.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { deployTestUsdc, type TestUsdc } from '../support/testUsdc.js';

/**
 * turbo-sdk 1.43.0 pays x402 with a viem wallet on `base` (chain 8453: lib/esm/common/signer.js
 * `makeX402Signer`), so the local chain runs with Base's chain id and the service calls it `base`.
 */
const BASE_CHAIN_ID = 8453;

describe('x402 with turbo-sdk 1.43.0 (uploadRawX402Data, token base-usdc)', function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let usdc: TestUsdc;
  let service: TestService;
  let keyDir: string;

  before(async () => {
    chain = await startLocalChain({ chainId: BASE_CHAIN_ID });
    const [deployer, , settler, recipient, , signerOfItems] = chain.accounts;
    usdc = await deployTestUsdc(chain.url, BASE_CHAIN_ID, deployer!.privateKey as Hex);
    keyDir = await mkdtemp(join(tmpdir(), 'x402-key-'));
    await writeFile(join(keyDir, 'settler.key'), settler!.privateKey, { mode: 0o600 });
    await writeFile(join(keyDir, 'items.key'), signerOfItems!.privateKey, { mode: 0o600 });
    service = await startTestService({
      FREE_UPLOAD_LIMIT_BYTES: '100',
      PRICE_WINC_PER_BYTE: '1000',
      X402_WINC_PER_USDC: '3000000000',
      X402_DATA_ITEM_KEY_FILE: join(keyDir, 'items.key'),
      X402_NETWORKS: JSON.stringify([
        {
          network: 'base',
          chainId: BASE_CHAIN_ID,
          rpcUrl: chain.url,
          usdc: usdc.address,
          payTo: getAddress(recipient!.address),
          keyFile: join(keyDir, 'settler.key'),
        },
      ]),
    });
    TurboFactory.setLogLevel('none');
  });
  after(async () => {
    await service?.close();
    await chain?.stop();
    if (keyDir) await rm(keyDir, { recursive: true, force: true });
  });

  it('uploads raw data paid in USDC: the item stored with its tags, the payer charged its price', async () => {
    const payer = chain.accounts[1]!;
    const payerAddress = getAddress(payer.address);
    await usdc.mint(payerAddress, 10_000_000n);
    const turbo = TurboFactory.authenticated({
      privateKey: payer.privateKey,
      token: 'base-usdc',
      uploadServiceConfig: { url: service.url },
      paymentServiceConfig: { url: service.url },
    });
    const data = Buffer.from('paid with x402 through turbo-sdk '.repeat(10));
    const receipt = (await turbo.uploadRawX402Data({ data, tags: [{ name: 'App-Name', value: 'turbo-x402' }] })) as { id: string; winc: string };
    const header = (await (await fetch(`${service.url}/tx/${receipt.id}`)).json()) as { tags: { name: string; value: string }[]; rawContentLength: number };
    expect(header.tags).to.deep.include({ name: 'App-Name', value: 'turbo-x402' });
    expect(header.tags).to.deep.include({ name: 'X402-Payer-Address', value: payerAddress });
    const price = BigInt(header.rawContentLength) * 1000n;
    expect(receipt.winc).to.equal(price.toString());
    expect(await usdc.balanceOf(payerAddress)).to.equal(10_000_000n - (price * 10n ** 6n + 3_000_000_000n - 1n) / 3_000_000_000n);
  });
});
