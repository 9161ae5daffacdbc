import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Uploader } from '@irys/upload';
import { Ethereum } from '@irys/upload-ethereum';
import { TurboFactory, type TurboAuthenticatedClient } from '@ardrive/turbo-sdk';
import { startTestService, type TestService } from '../support/testService.js';
import { arweaveJwk } from '../support/items.js';
import { toChecksumAddress } from '../../src/verify/index.js';
import { recordForeignConnections, recordRequests, type RequestLog } from './support/observe.js';

const FREE = 1000;
const RATE = 10n; // winc per byte
const ETH_SERVICE = '0x0000000000000000000000000000000000000001';
const meta = { correlationId: 'test' };
const TURBO_CLI = fileURLToPath(new URL('../../node_modules/@ardrive/turbo-sdk/lib/esm/cli/cli.js', import.meta.url));
const ARWEAVE_JWK_FILE = fileURLToPath(new URL('../fixtures/arweave-jwk.json', import.meta.url));

type Irys = Awaited<ReturnType<ReturnType<typeof Uploader>['build']>>;

/** the arweave native address of a JWK: base64url(sha256(modulus)) */
const addressOfJwk = (jwk: { n: string }) => createHash('sha256').update(Buffer.from(jwk.n, 'base64url')).digest('base64url');

async function credit(service: TestService, address: string, winc: bigint) {
  const { position } = await service.accounts.execute({ type: 'Credit', data: { address, winc, creditId: `${address}:${winc}`, now: Date.now() } }, meta);
  await service.projections.waitFor(position!, 5000);
}

describe('prices and balances through the real clients (@irys/upload, @ardrive/turbo-sdk 1.43)', function () {
  this.timeout(60_000);
  let service: TestService;
  let requests: RequestLog;
  let foreign: ReturnType<typeof recordForeignConnections>;

  before(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: String(RATE), ADDRESS_ETHEREUM: ETH_SERVICE });
    requests = recordRequests(service.server!);
    foreign = recordForeignConnections([service.url, service.gatewayUrl]);
  });
  beforeEach(() => requests.clear());
  after(async () => {
    foreign.stop();
    requests.stop();
    await service.close();
  });

  describe('Irys uploader (ethereum)', () => {
    let irys: Irys;
    before(async () => {
      irys = await Uploader(Ethereum).withWallet(randomBytes(32).toString('hex')).bundlerUrl(service.url);
    });

    it('getPrice(bytes) is bytes × PRICE_WINC_PER_BYTE above the free limit and 0 up to it (GET /price/ethereum/:bytes)', async () => {
      expect((await irys.getPrice(5000)).toString(10)).to.equal('50000');
      expect((await irys.getPrice(FREE)).toString(10)).to.equal('0');
      expect((await irys.utils.getPrice('ethereum', FREE + 1)).toString(10)).to.equal('10010');
      expect(requests.entries).to.deep.equal([
        'GET /price/ethereum/5000 -> 200',
        `GET /price/ethereum/${FREE} -> 200`,
        `GET /price/ethereum/${FREE + 1} -> 200`,
      ]);
      expect(foreign.origins).to.deep.equal([]);
    });

    it("getBalance() and getLoadedBalance() read the operator's credit (GET /account/balance/ethereum?address=)", async () => {
      expect((await irys.getBalance()).toString(10)).to.equal('0');
      await credit(service, toChecksumAddress(irys.address!), 123_456n);
      expect((await irys.getBalance()).toString(10)).to.equal('123456');
      expect((await irys.getLoadedBalance()).toString(10)).to.equal('123456');
      expect((await irys.getBalance(irys.address!)).toString(10)).to.equal('123456');
      expect(
        requests.entries.every((e) => e === `GET /account/balance/ethereum?address=${irys.address} -> 200`),
        requests.entries.join(),
      ).to.equal(true);
      expect(foreign.origins).to.deep.equal([]);
    });
  });

  describe('turbo-sdk with paymentServiceConfig.url = the service', () => {
    let turbo: TurboAuthenticatedClient;
    before(() => {
      turbo = TurboFactory.authenticated({
        privateKey: arweaveJwk,
        token: 'arweave',
        uploadServiceConfig: { url: service.url },
        paymentServiceConfig: { url: service.url },
      });
    });

    it('getUploadCosts({ bytes }) answers one { winc, adjustments, fees } per size (GET /v1/price/bytes/:bytes)', async () => {
      expect(await turbo.getUploadCosts({ bytes: [5000, FREE, 2 ** 30] })).to.deep.equal([
        { winc: '50000', adjustments: [], fees: [] },
        { winc: '0', adjustments: [], fees: [] },
        { winc: String(2n ** 30n * RATE), adjustments: [], fees: [] },
      ]);
      expect([...requests.entries].sort()).to.deep.equal(
        ['GET /v1/price/bytes/5000 -> 200', `GET /v1/price/bytes/${FREE} -> 200`, `GET /v1/price/bytes/${2 ** 30} -> 200`].sort(),
      );
      expect(foreign.origins).to.deep.equal([]);
    });

    it("getBalance() reads the signer's balance after an operator credit, with the approval lists its CLI reads", async () => {
      const address = addressOfJwk(arweaveJwk);
      expect(await turbo.signer.getNativeAddress()).to.equal(address);
      await credit(service, address, 987_654n);
      expect(await turbo.getBalance()).to.deep.equal({
        balance: '987654',
        winc: '987654',
        controlledWinc: '987654',
        effectiveBalance: '987654',
        givenApprovals: [],
        receivedApprovals: [],
      });
      expect(requests.entries).to.deep.equal([`GET /v1/account/balance/arweave?address=${address} -> 200`]);
      expect(foreign.origins).to.deep.equal([]);
    });

    it('getCreditShareApprovals({ userAddress }) lists the approvals given and received (GET /v1/account/approvals/get)', async () => {
      const giver = 'giver'.padEnd(43, 'G');
      const taker = 'taker'.padEnd(43, 'T');
      const { position } = await service.accounts.execute(
        { type: 'Approve', data: { address: giver, approvedAddress: taker, winc: 700n, now: Date.now() } },
        meta,
      );
      await service.projections.waitFor(position!, 5000);
      const approval = { payingAddress: giver, approvedAddress: taker, remainingWinc: '700' };
      expect(await turbo.getCreditShareApprovals({ userAddress: taker })).to.deep.equal({ givenApprovals: [], receivedApprovals: [approval] });
      expect(await turbo.getCreditShareApprovals({ userAddress: giver })).to.deep.equal({ givenApprovals: [approval], receivedApprovals: [] });
      expect(requests.entries).to.deep.equal([
        `GET /v1/account/approvals/get?userAddress=${taker} -> 200`,
        `GET /v1/account/approvals/get?userAddress=${giver} -> 200`,
      ]);
    });

    /** `turbo upload-file` of a paid file (twice the free limit), without --ignore-approvals: its receipt */
    async function cliUpload(): Promise<{ id: string; winc: string }> {
      const dir = await mkdtemp(join(tmpdir(), 'turbo-cli-'));
      try {
        const file = join(dir, 'paid.bin');
        await writeFile(file, randomBytes(2 * FREE));
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [
            TURBO_CLI,
            'upload-file',
            '--file-path',
            file,
            '--wallet-file',
            ARWEAVE_JWK_FILE,
            '--token',
            'arweave',
            '--upload-url',
            service.url,
            '--payment-url',
            service.url,
          ],
          { timeout: 50_000 },
        );
        return JSON.parse(stdout.slice(stdout.indexOf('{'))) as { id: string; winc: string };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }

    it('the turbo CLI uploads a paid file without --ignore-approvals: it reads the approvals from the balance, then pays from it', async () => {
      const address = addressOfJwk(arweaveJwk);
      {
        await credit(service, address, 100_000n);
        const before = await turbo.getBalance();
        requests.clear();
        const receipt = await cliUpload();
        expect(requests.entries).to.deep.equal([`GET /v1/account/balance/arweave?address=${address} -> 200`, 'POST /v1/tx/arweave -> 200']);
        const status = await (await fetch(`${service.url}/tx/${receipt.id}/status`)).json();
        expect(receipt.winc).to.equal((BigInt(status.rawContentLength) * RATE).toString());
        expect((await turbo.getBalance()).winc).to.equal((BigInt(before.winc) - BigInt(receipt.winc)).toString());
        expect(foreign.origins).to.deep.equal([]);
      }
    });

    it("the turbo CLI pays with a payer that approved the signer, as the balance's receivedApprovals name it", async () => {
      const signer = addressOfJwk(arweaveJwk);
      const payer = 'payer'.padEnd(43, 'Z');
      await credit(service, payer, 100_000n);
      const { position } = await service.accounts.execute(
        { type: 'Approve', data: { address: payer, approvedAddress: signer, winc: 50_000n, now: Date.now() } },
        meta,
      );
      await service.projections.waitFor(position!, 5000);
      const signerBefore = (await turbo.getBalance()).winc;
      const receipt = await cliUpload();
      expect(BigInt(receipt.winc) > 0n).to.equal(true);
      // settled before the receipt: the payer paid, the signer's own credits are untouched
      expect((await turbo.getBalance(payer)).winc).to.equal((100_000n - BigInt(receipt.winc)).toString());
      const after = await turbo.getBalance();
      expect(after.winc).to.equal(signerBefore);
      expect(after.receivedApprovals).to.deep.equal([
        { payingAddress: payer, approvedAddress: signer, remainingWinc: (50_000n - BigInt(receipt.winc)).toString() },
      ]);
    });
  });
});
