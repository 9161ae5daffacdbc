import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { TurboFactory, USD, type TurboAuthenticatedClient } from '@ardrive/turbo-sdk';
import { Uploader } from '@irys/upload';
import { Ethereum } from '@irys/upload-ethereum';
import { randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../support/testService.js';
import { arweaveJwk } from '../support/items.js';
import { recordRequests, type RequestLog } from './support/observe.js';

/**
 * turbo-sdk 1.43's payment calls that only it makes, unmodified, against the service as its payment URL.
 * Where each client calls (so `/price/:token/:x` has two meanings, told apart by the path's prefix):
 * - turbo-sdk builds its payment TurboHTTPService with `${url}/v1` (lib/esm/common/payment.js; ardriveapp/turbo-sdk
 *   packages/turbo-sdk/src/common/payment.ts at 1be4559) and calls `/price/${token}/${tokenAmount}` under it:
 *   `/v1/price/arweave/<winston>`;
 * - Irys calls `/price/${token}/${bytes}` on its bundler URL's origin, dropping any path
 *   (@irys/upload-core utils.js `getPrice`; Irys-xyz/arweave-js-sdk src/common/utils.ts at 985ba09): the root.
 */
const FREE = 2048;
const RATE = 10n; // winc per byte
const WINC_PER_AR = 777_777_777_777_777n;
const WINSTON_PER_AR = 10n ** 12n;
const TURBO_CLI = fileURLToPath(new URL('../../node_modules/@ardrive/turbo-sdk/lib/esm/cli/cli.js', import.meta.url));

const addressOfJwk = (jwk: { n: string }) => createHash('sha256').update(Buffer.from(jwk.n, 'base64url')).digest('base64url');

/** turbo-sdk's FailedRequestError message, or 'resolved' */
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (e: Error) => e.message,
  );

describe("turbo-sdk's payment calls: token prices, free status, rates (@ardrive/turbo-sdk 1.43)", function () {
  this.timeout(60_000);
  let service: TestService;
  let requests: RequestLog;
  let turbo: TurboAuthenticatedClient;

  before(async () => {
    service = await startTestService({
      FREE_UPLOAD_LIMIT_BYTES: String(FREE),
      PRICE_WINC_PER_BYTE: String(RATE),
      TOPUP_WINC_PER_AR: String(WINC_PER_AR),
    });
    requests = recordRequests(service.server!);
    turbo = TurboFactory.authenticated({
      privateKey: arweaveJwk,
      token: 'arweave',
      uploadServiceConfig: { url: service.url },
      paymentServiceConfig: { url: service.url },
    });
    TurboFactory.setLogLevel('none');
  });
  beforeEach(() => requests.clear());
  after(async () => {
    TurboFactory.setLogLevel('info');
    requests.stop();
    await service.close();
  });

  it('getWincForToken credits a token amount at TOPUP_WINC_PER_AR, rounded down, exactly (GET /v1/price/arweave/:winston)', async () => {
    const tokenAmount = 123_456_789_012_345n;
    expect(await turbo.getWincForToken({ tokenAmount: tokenAmount.toString() })).to.deep.equal({
      winc: ((tokenAmount * WINC_PER_AR) / WINSTON_PER_AR).toString(), // 96021947009601570 (a double would say 96021947009601580)
      fees: [],
      actualTokenAmount: tokenAmount.toString(),
      equivalentWincTokenAmount: tokenAmount.toString(),
    });
    expect(requests.entries).to.deep.equal([`GET /v1/price/arweave/${tokenAmount} -> 200`]);
  });

  it('the same path at the root is still the Irys price by bytes (Irys calls the root)', async () => {
    const irys = await Uploader(Ethereum).withWallet(randomBytes(32).toString('hex')).bundlerUrl(service.url);
    expect((await irys.getPrice(5000)).toString(10)).to.equal('50000');
    expect(requests.entries).to.deep.equal(['GET /price/ethereum/5000 -> 200']);
  });

  it('getTokenPriceForBytes divides the price of a GiB by the credits of one AR', async () => {
    const { tokenPrice } = await turbo.getTokenPriceForBytes({ byteCount: 2 ** 30 });
    // 2^30 × 10 winc / 777777777777777 winc per AR, to turbo-sdk's 12 decimals
    expect(tokenPrice).to.equal('0.000013805252');
    expect([...requests.entries].sort()).to.deep.equal([`GET /v1/price/arweave/${WINSTON_PER_AR} -> 200`, `GET /v1/price/bytes/${2 ** 30} -> 200`].sort());
  });

  it('a token the service takes no top-ups in is Invalid token; fiat is a clear error, never a price of 0', async () => {
    const solana = TurboFactory.unauthenticated({ token: 'solana', paymentServiceConfig: { url: service.url } });
    expect(await failureOf(solana.getWincForToken({ tokenAmount: 1000 }))).to.equal('Failed request (Status 400): Invalid token');
    expect(await failureOf(turbo.getWincForFiat({ amount: USD(10) }))).to.equal('Failed request (Status 400): Fiat payments not supported');
    expect(await failureOf(turbo.getFiatToAR({ currency: 'usd' }))).to.equal('Failed request (Status 400): Fiat payments not supported');
  });

  it('bad token amounts: not an integer, negative, past 40 digits: Invalid request', async () => {
    for (const amount of ['1.5', '-1', '1e5', '9'.repeat(41)]) {
      const answer = await fetch(`${service.url}/v1/price/arweave/${amount}`);
      expect([answer.status, await answer.text()], amount).to.deep.equal([400, 'Invalid request']);
    }
    const largest = 10n ** 40n - 1n;
    expect(await (await fetch(`${service.url}/v1/price/arweave/${largest}`)).json()).to.deep.equal({
      winc: ((largest * WINC_PER_AR) / WINSTON_PER_AR).toString(),
      fees: [],
      actualPaymentAmount: largest.toString(),
    });
  });

  it('getFreeStatus answers the free bytes of every item, FREE_UPLOAD_LIMIT_BYTES, as a number (GET /v1/account/free)', async () => {
    const address = addressOfJwk(arweaveJwk);
    expect(await turbo.getFreeStatus()).to.deep.equal({ bytesRemaining: FREE });
    expect(requests.entries).to.deep.equal([`GET /v1/account/free?address=${address} -> 200`]);
    const bad = await fetch(`${service.url}/v1/account/free?address=not-an-address`);
    expect([bad.status, await bad.text()]).to.deep.equal([400, 'Invalid address']);
  });

  it('`turbo free-status --address` prints the number', async () => {
    const address = addressOfJwk(arweaveJwk);
    const { stdout } = await promisify(execFile)(process.execPath, [TURBO_CLI, 'free-status', '--address', address, '--payment-url', service.url], {
      timeout: 50_000,
    });
    expect(stdout).to.include(`Free bytes remaining: ${FREE}`);
  });

  it('getFiatRates, getSupportedCurrencies, getSupportedCountries answer in their shapes, with no fiat', async () => {
    expect(await turbo.getFiatRates()).to.deep.equal({ winc: String(2n ** 30n * RATE), adjustments: [], fees: [], fiat: {} });
    expect(await turbo.getSupportedCurrencies()).to.deep.equal({ supportedCurrencies: [], limits: {} });
    expect(await turbo.getSupportedCountries()).to.deep.equal([]);
    expect(requests.entries).to.deep.equal(['GET /v1/rates -> 200', 'GET /v1/currencies -> 200', 'GET /v1/countries -> 200']);
  });
});
