import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { computePublicKey } from '@ethersproject/signing-key';
import { addressOfPublicKey } from '../../src/domain/account/ethereumAddress.js';
import { expect } from 'chai';
import bs58 from 'bs58';
import { TurboFactory } from '@ardrive/turbo-sdk';
import { Uploader } from '@irys/upload';
import { Ethereum } from '@irys/upload-ethereum';
import { startTestService, type TestService } from '../support/testService.js';
import { toChecksumAddress } from '../../src/verify/index.js';
import { recordRequests, type RequestLog } from './support/observe.js';

/**
 * `GET /account/balance/:token?address=` for every token name the clients send, with no address of
 * that token configured in `/info`. turbo-sdk 1.43 `getBalance` calls `/v1/account/balance/${token}?address=`
 * (lib/esm/common/payment.js); Irys `getBalance` calls `/account/balance/${tokenConfig.name}?address=`
 * (@irys/upload-core utils.js; Irys-xyz/arweave-js-sdk src/common/utils.ts at 985ba09).
 */
const meta = { correlationId: 'test' };
const TURBO_CLI = fileURLToPath(new URL('../../node_modules/@ardrive/turbo-sdk/lib/esm/cli/cli.js', import.meta.url));
/** a kyve bech32 address (43 characters, as turbo-sdk's `isKyveAddress` reads them): the shape of an arweave address too */
const KYVE = 'kyve1' + 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'.repeat(2).slice(0, 38);
/** the well-known Algorand address of the all-zero key (its checksum: the last 4 bytes of SHA-512/256 of 32 zero bytes) */
const ALGORAND_ZERO = 'A'.repeat(52) + 'Y5HFKQ';

describe('balances by token name through the real clients', function () {
  this.timeout(60_000);
  let service: TestService;
  let requests: RequestLog;

  async function credit(address: string, winc: bigint) {
    const { position } = await service.accounts.execute({ type: 'Credit', data: { address, winc, creditId: `${address}:${winc}`, now: Date.now() } }, meta);
    await service.projections.waitFor(position!, 5000);
  }
  const balanceOf = async (token: string, address: string) => {
    const answer = await fetch(`${service.url}/account/balance/${token}?address=${encodeURIComponent(address)}`);
    return [answer.status, answer.status === 200 ? (await answer.json()).balance : await answer.text()];
  };

  before(async () => {
    service = await startTestService();
    requests = recordRequests(service.server!);
  });
  beforeEach(() => requests.clear());
  after(async () => {
    requests.stop();
    await service.close();
  });

  it('turbo-sdk getBalance answers the account of a 0x address for each of its EVM tokens, none of them in /info', async () => {
    const address = toChecksumAddress(randomBytes(20).toString('hex'));
    await credit(address, 4242n);
    for (const token of ['ethereum', 'matic', 'pol', 'base-eth', 'usdc', 'base-usdc', 'polygon-usdc', 'base-ario'] as const) {
      const turbo = TurboFactory.unauthenticated({ token: token as 'ethereum', paymentServiceConfig: { url: service.url } });
      expect((await turbo.getBalance(address.toLowerCase())).winc, token).to.equal('4242');
    }
    expect(requests.entries[0]).to.equal(`GET /v1/account/balance/ethereum?address=${address.toLowerCase()} -> 200`);
  });

  it('turbo-sdk getBalance for solana and ario (base58 and arweave addresses)', async () => {
    const solana = bs58.encode(randomBytes(32));
    const arweave = randomBytes(32).toString('base64url');
    await credit(solana, 7n);
    await credit(arweave, 8n);
    expect((await TurboFactory.unauthenticated({ token: 'solana', paymentServiceConfig: { url: service.url } }).getBalance(solana)).winc).to.equal('7');
    expect((await TurboFactory.unauthenticated({ token: 'ario', paymentServiceConfig: { url: service.url } }).getBalance(arweave)).winc).to.equal('8');
  });

  it('turbo-sdk getBalance for kyve: a bech32 address is a hash of the key, not the account key: Invalid address, surfaced', async () => {
    const turbo = TurboFactory.unauthenticated({ token: 'kyve', paymentServiceConfig: { url: service.url } });
    TurboFactory.setLogLevel('none');
    try {
      const error = await turbo.getBalance(KYVE).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(error).to.include('Invalid address');
    } finally {
      TurboFactory.setLogLevel('info');
    }
  });

  it('Irys getBalance for ethereum with no ethereum address in /info', async () => {
    const irys = await Uploader(Ethereum).withWallet(randomBytes(32).toString('hex')).bundlerUrl(service.url);
    await credit(toChecksumAddress(irys.address!), 99n);
    expect((await irys.getBalance()).toString(10)).to.equal('99');
    expect(requests.entries.at(-1)).to.equal(`GET /account/balance/ethereum?address=${irys.address} -> 200`);
  });

  it("Irys's ed25519 tokens: an Algorand address and a NEAR implicit account name the key's base58 account", async () => {
    await credit(bs58.encode(Buffer.alloc(32)), 55n);
    expect(await balanceOf('algorand', ALGORAND_ZERO)).to.deep.equal([200, '55']);
    expect(await balanceOf('near', '00'.repeat(32))).to.deep.equal([200, '55']);
  });

  describe('bad input: the contract errors', () => {
    for (const [what, token, address, answer] of [
      ['an unknown token', 'dogecoin', '0x' + '11'.repeat(20), [400, 'Invalid token']],
      ['a token of another shape', 'ETH!', '0x' + '11'.repeat(20), [400, 'Invalid token']],
      ['an Algorand address whose checksum fails', 'algorand', ALGORAND_ZERO.slice(0, -1) + 'A', [400, 'Invalid address']],
      ['an Aptos address (a hash of the key)', 'aptos', '0x' + 'ab'.repeat(32), [400, 'Invalid address']],
      ['a named NEAR account', 'near', 'alice.near', [400, 'Invalid address']],
      ['a kyve bech32 address', 'kyve', KYVE, [400, 'Invalid address']],
      ['a 0x address one digit short', 'ethereum', '0x' + '11'.repeat(19) + '1', [400, 'Invalid address']],
      ['a base58 address with a 0', 'solana', '0'.repeat(44), [400, 'Invalid address']],
      ['an empty address', 'arweave', '', [400, 'Invalid address']],
      ['a base58 key for ethereum', 'ethereum', '4'.repeat(44), [400, 'Invalid address']],
      ['an ethereum address for solana', 'solana', '0x' + '11'.repeat(20), [400, 'Invalid address']],
      ['a base58 string of 33 bytes for solana', 'solana', bs58.encode(Buffer.alloc(33, 9)), [400, 'Invalid address']],
    ] as const) {
      it(`${what}: ${answer[1]}`, async () => {
        expect(await balanceOf(token, address)).to.deep.equal(answer);
      });
    }
  });
});
