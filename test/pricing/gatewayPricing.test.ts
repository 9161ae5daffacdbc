import { expect } from 'chai';
import { createGatewayPricing, type GatewayPricingOptions } from '../../src/adapters/pricing/gatewayPricing.js';
import { ServiceUnavailable, TooManyRequests } from '../../src/domain/errors.js';
import { createLookupBudgets } from '../../src/adapters/pricing/lookupBudget.js';
import { MAX_GATEWAY_ANSWER_BYTES } from '../../src/adapters/gateway/request.js';
import { startScriptedGateway } from '../gateway/scriptedGateway.js';
import { flat, startFakePriceGateway, type FakePriceGateway } from './fakePriceGateway.js';
import { rejectionOf } from './support.js';
import { eventually } from '../support/eventually.js';

const CHUNK = 262_144;

describe('gateway pricing', () => {
  let gateway: FakePriceGateway | undefined;
  let clock: number;
  let logged: string[];

  /** a pricing on the test gateway, on the test clock, whose log lines are kept; no margin unless given */
  const pricing = (options: Partial<GatewayPricingOptions> = {}) =>
    createGatewayPricing({
      gatewayUrl: gateway!.url,
      marginPercent: 0,
      now: () => clock,
      log: (message) => logged.push(message),
      ...options,
    });

  /** the detail of the ServiceUnavailable a price rejects with */
  async function unavailable(price: Promise<bigint>): Promise<string | undefined> {
    const error = await rejectionOf(price);
    expect(error).to.be.instanceOf(ServiceUnavailable);
    return (error as ServiceUnavailable).detail;
  }

  beforeEach(() => {
    clock = 0;
    logged = [];
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  describe('prices', () => {
    it('asks the gateway for whole 256 KiB chunks and adds the margin to its price', async () => {
      gateway = await startFakePriceGateway(flat('1000'));
      const prices = pricing({ marginPercent: 10 });

      expect(await prices.priceOf(1)).to.equal(1100n);
      expect(gateway.requested).to.deep.equal([CHUNK]);
    });

    it('rounds a fractional margin up to the next winc', async () => {
      gateway = await startFakePriceGateway({ answer: 'price', body: (bytes) => (bytes === CHUNK ? '1000' : '1001') });
      const prices = pricing({ marginPercent: 12.5 });

      expect(await prices.priceOf(CHUNK)).to.equal(1125n);
      expect(await prices.priceOf(CHUNK + 1)).to.equal(1127n); // 1001 × 1.125 = 1126.125
    });

    it('keeps a margin to the hundredth of a percent, whatever floating point makes of it', async () => {
      gateway = await startFakePriceGateway(flat('100000'));
      // 1.005 × 100 is 100.49999999999999 in floating point; the margin is still 101 basis points.
      expect(await pricing({ marginPercent: 1.005 }).priceOf(1)).to.equal(101_010n);
    });

    it('asks the price of 0 bytes for an empty item', async () => {
      gateway = await startFakePriceGateway(flat('500'));

      expect(await pricing().priceOf(0)).to.equal(500n);
      expect(gateway.requested).to.deep.equal([0]);
    });

    it('asks for the exact size of items beyond 2 GiB', async () => {
      gateway = await startFakePriceGateway({ answer: 'price', body: (bytes) => String(bytes) });

      // 2^31 + 1 bytes start chunk 8193; 2147745792 × 1.1 = 2362520371.2
      expect(await pricing({ marginPercent: 10 }).priceOf(2 ** 31 + 1)).to.equal(2_362_520_372n);
      expect(gateway.requested).to.deep.equal([8193 * CHUNK]);
    });

    it('refuses a size that is not a byte count, without asking the gateway', async () => {
      gateway = await startFakePriceGateway(flat('1'));
      const prices = pricing();

      for (const bytes of [-1, 1.5, Number.NaN, 2 ** 53]) {
        expect(await rejectionOf(prices.priceOf(bytes))).to.be.instanceOf(RangeError);
      }
      expect(gateway.requests).to.equal(0);
    });

    it('keeps a path prefix of the gateway URL', async () => {
      const requested: string[] = [];
      const prices = createGatewayPricing({
        gatewayUrl: 'http://gateway.invalid/arweave/',
        marginPercent: 0,
        fetch: async (input) => {
          requested.push(String(input));
          return new Response('42', { status: 200 });
        },
      });

      expect(await prices.priceOf(1)).to.equal(42n);
      expect(requested).to.deep.equal([`http://gateway.invalid/arweave/price/${CHUNK}`]);
    });
  });

  describe('cache', () => {
    it('makes one request for all sizes within one chunk', async () => {
      gateway = await startFakePriceGateway({ answer: 'price', body: (bytes) => String((bytes / CHUNK) * 1000) });
      const prices = pricing();

      expect(await prices.priceOf(1)).to.equal(1000n);
      expect(await prices.priceOf(1000)).to.equal(1000n);
      expect(await prices.priceOf(CHUNK)).to.equal(1000n);
      expect(await prices.priceOf(CHUNK + 1)).to.equal(2000n);
      expect(gateway.requested).to.deep.equal([CHUNK, 2 * CHUNK]);
    });

    it('asks again once a price is cacheTtlMs old', async () => {
      gateway = await startFakePriceGateway(flat('1000'));
      const prices = pricing({ cacheTtlMs: 60_000 });
      expect(await prices.priceOf(1)).to.equal(1000n);
      gateway.set(flat('2000'));

      clock = 59_999;
      expect(await prices.priceOf(1)).to.equal(1000n);
      expect(gateway.requests).to.equal(1);

      clock = 60_000;
      expect(await prices.priceOf(1)).to.equal(2000n);
      expect(gateway.requests).to.equal(2);
    });

    it('makes one request for concurrent misses of the same chunk count', async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      gateway = await startFakePriceGateway({ answer: 'price', body: async () => (await released, '700') });
      const prices = pricing();

      const answers = Promise.all([prices.priceOf(10), prices.priceOf(20), prices.priceOf(CHUNK)]);
      await gateway.nextRequest(1);
      release();

      expect(await answers).to.deep.equal([700n, 700n, 700n]);
      expect(gateway.requests).to.equal(1);
    });

    it('keeps at most maxEntries prices, dropping the least recently used', async () => {
      gateway = await startFakePriceGateway({ answer: 'price', body: (bytes) => String(bytes / CHUNK) });
      const prices = pricing({ maxEntries: 2 });

      await prices.priceOf(CHUNK);
      await prices.priceOf(2 * CHUNK);
      await prices.priceOf(CHUNK); // now the most recently used
      await prices.priceOf(3 * CHUNK); // drops 2 chunks
      expect(await prices.priceOf(CHUNK)).to.equal(1n);
      expect(await prices.priceOf(2 * CHUNK)).to.equal(2n);

      expect(gateway.requested).to.deep.equal([CHUNK, 2 * CHUNK, 3 * CHUNK, 2 * CHUNK]);
    });
  });

  describe('when the gateway fails', () => {
    it('answers the last price fetched for that size, rather than extrapolating, and logs why', async () => {
      gateway = await startFakePriceGateway({ answer: 'price', body: (bytes) => (bytes === CHUNK ? '1000' : '5000') });
      const prices = pricing({ marginPercent: 10, cacheTtlMs: 1000, retryAfterFailureMs: 0 });
      await prices.priceOf(1);
      clock = 10;
      await prices.priceOf(CHUNK + 1); // the latest price, 2500 a chunk

      clock = 2000;
      gateway.set({ answer: 'error', status: 500 });
      expect(await prices.priceOf(1)).to.equal(1100n);

      await gateway.close();
      clock = 3000;
      expect(await prices.priceOf(1)).to.equal(1100n);

      expect(logged).to.deep.equal([
        `price not fetched, using the one fetched 2000 ms ago: GET ${gateway.url}/price/${CHUNK} answered HTTP 500`,
        `price not fetched, using the one fetched 3000 ms ago: GET ${gateway.url}/price/${CHUNK} failed (ECONNREFUSED)`,
      ]);
    });

    it('extrapolates a size never fetched from the latest price, rounding up, and logs it', async () => {
      gateway = await startFakePriceGateway(flat('4001'));
      const prices = pricing({ retryAfterFailureMs: 0 });
      expect(await prices.priceOf(4 * CHUNK)).to.equal(4001n);
      gateway.set({ answer: 'error', status: 502 });

      expect(await prices.priceOf(10 * CHUNK)).to.equal(10_003n); // 4001 / 4 × 10 = 10002.5
      expect(await prices.priceOf(0)).to.equal(1001n); // an empty item as one chunk, never free

      expect(logged).to.deep.equal([
        `price not fetched, extrapolated from the price of ${4 * CHUNK} bytes: GET ${gateway.url}/price/${10 * CHUNK} answered HTTP 502`,
        `price not fetched, extrapolated from the price of ${4 * CHUNK} bytes: GET ${gateway.url}/price/0 answered HTTP 502`,
      ]);
    });

    it('answers Service unavailable when no price was ever fetched', async () => {
      gateway = await startFakePriceGateway({ answer: 'error', status: 500 });
      const prices = pricing({ retryAfterFailureMs: 0 });

      expect(await unavailable(prices.priceOf(1))).to.equal(`price unavailable: GET ${gateway.url}/price/${CHUNK} answered HTTP 500`);
      await gateway.close();
      expect(await unavailable(prices.priceOf(1))).to.equal(`price unavailable: GET ${gateway.url}/price/${CHUNK} failed (ECONNREFUSED)`);
      expect(logged).to.deep.equal([]);
    });

    it('says when to ask again: the seconds left of the pause after a gateway failure, at least 1', async () => {
      gateway = await startFakePriceGateway({ answer: 'error', status: 500 });
      const prices = pricing({ retryAfterFailureMs: 10_000 });
      const retryAfterOf = async (price: Promise<bigint>) => ((await rejectionOf(price)) as ServiceUnavailable).retryAfterSeconds;

      expect(await retryAfterOf(prices.priceOf(1))).to.equal(10);
      clock = 2_500;
      expect(await retryAfterOf(prices.priceOf(1))).to.equal(8);
      clock = 9_999;
      expect(await retryAfterOf(prices.priceOf(1))).to.equal(1);
    });

    it('gives up on a gateway that does not answer after fetchTimeoutMs', async () => {
      gateway = await startFakePriceGateway({ answer: 'never' });

      expect(await unavailable(pricing({ fetchTimeoutMs: 50 }).priceOf(1))).to.equal(
        `price unavailable: GET ${gateway.url}/price/${CHUNK} timed out after 50 ms`,
      );
    });

    it('cuts an answer without end past 1 MiB: Service unavailable, the connection closed', async () => {
      const endless = await startScriptedGateway();
      try {
        endless.answer('GET', `/price/${CHUNK}`, 'endless');
        const prices = createGatewayPricing({ gatewayUrl: endless.url, marginPercent: 0, fetchTimeoutMs: 600_000, log: (message) => logged.push(message) });
        expect(await unavailable(prices.priceOf(1))).to.equal(
          `price unavailable: GET ${endless.url}/price/${CHUNK} answered more than ${MAX_GATEWAY_ANSWER_BYTES} bytes: cut`,
        );
        await eventually(() => endless.endless[0]?.closed === true, Boolean, 'the endless answer closed by the client');
      } finally {
        await endless.close();
      }
    });

    it('refuses an answer that is not a non-negative integer', async () => {
      gateway = await startFakePriceGateway(flat(''));
      const prices = pricing({ retryAfterFailureMs: 0 });

      for (const body of ['-1', '12.5', '', 'abc', '1e6', '{"winston":"1"}', '0x10']) {
        gateway.set(flat(body));
        expect(await unavailable(prices.priceOf(1))).to.equal(`price unavailable: GET ${gateway.url}/price/${CHUNK} answered without a price in winston`);
      }
      gateway.set(flat('42\n'));
      expect(await prices.priceOf(1)).to.equal(42n);
    });

    it('does not ask again for retryAfterFailureMs, answering from the fallbacks meanwhile', async () => {
      gateway = await startFakePriceGateway(flat('1000'));
      const prices = pricing({ cacheTtlMs: 1000, retryAfterFailureMs: 10_000 });
      await prices.priceOf(1);

      clock = 5000;
      gateway.set({ answer: 'error', status: 500 });
      expect(await prices.priceOf(1)).to.equal(1000n);
      gateway.set(flat('2000'));
      clock = 14_999;
      expect(await prices.priceOf(1)).to.equal(1000n);
      expect(await prices.priceOf(2 * CHUNK)).to.equal(2000n); // extrapolated, the gateway not asked
      expect(gateway.requests).to.equal(2);

      clock = 15_000;
      expect(await prices.priceOf(1)).to.equal(2000n);
      expect(gateway.requests).to.equal(3);
      expect(logged).to.have.length(1);
    });
  });

  describe('issue 34: what is the gateway failing, and what a client may ask of it', () => {
    it('takes an error of its own (a size the gateway cannot be asked for) for no gateway failure: no fallback window, nothing logged', async () => {
      gateway = await startFakePriceGateway(flat('1000'));
      const prices = pricing();
      expect(await prices.priceOf(1)).to.equal(1000n);
      // 9007199254740991 bytes are 34359738368 chunks, whose bytes are past the safe integers: a RangeError of ours
      expect(await rejectionOf(prices.priceOf(Number.MAX_SAFE_INTEGER))).to.be.instanceOf(RangeError);
      gateway.set(flat('3000'));
      expect(await prices.priceOf(2 * CHUNK)).to.equal(3000n);
      expect(gateway.requested).to.deep.equal([CHUNK, 2 * CHUNK]);
      expect(logged).to.deep.equal([]);
    });

    it("asks the gateway for a client's distinct sizes up to its budget, then refuses with the seconds until one more", async () => {
      gateway = await startFakePriceGateway({ answer: 'price', body: (bytes) => String(bytes / CHUNK) });
      const prices = pricing();
      let monotonic = 0;
      const budgets = createLookupBudgets({ burst: 5, perMinute: 6 }, { monotonic: () => monotonic });
      const client = budgets.of('203.0.113.7');
      for (let chunks = 1; chunks <= 5; chunks++) expect(await prices.priceOf(chunks * CHUNK, client)).to.equal(BigInt(chunks));
      for (let chunks = 6; chunks <= 50; chunks++) {
        const refused = await rejectionOf(prices.priceOf(chunks * CHUNK, client));
        expect(refused).to.be.instanceOf(TooManyRequests);
        expect((refused as TooManyRequests).retryAfterSeconds).to.equal(10);
      }
      expect(gateway.requests).to.equal(5);
      // cached sizes cost nothing; another client has its own budget; uploads (no budget) are not held
      expect(await prices.priceOf(3 * CHUNK - 1, client)).to.equal(3n);
      expect(await prices.priceOf(6 * CHUNK, budgets.of('198.51.100.1'))).to.equal(6n);
      expect(await prices.priceOf(7 * CHUNK)).to.equal(7n);
      expect(gateway.requests).to.equal(7);
      // one look-up regained every 10 s of the monotonic clock
      monotonic += 10_000;
      expect(await prices.priceOf(8 * CHUNK, client)).to.equal(8n);
      expect(await rejectionOf(prices.priceOf(9 * CHUNK, client))).to.be.instanceOf(TooManyRequests);
      expect(gateway.requested).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8].map((chunks) => chunks * CHUNK));
    });
  });
});
