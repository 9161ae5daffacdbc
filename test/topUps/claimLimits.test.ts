import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { startCountingProxy, type CountingProxy } from '../support/countingProxy.js';
import { toChecksumAddress } from '../../src/verify/index.js';

/**
 * Top-up claims cost the operator requests to the chain's provider: one client's claims are limited
 * per minute (TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE: 429 with Retry-After before the chain is asked),
 * and a transaction the chain did not know is answered from memory for a while
 * (TOPUP_UNKNOWN_TX_CACHE_MS). ganache is the chain, behind a proxy that counts what reaches it.
 */
describe('top-up claims against the chain provider (ganache behind a counting proxy)', function () {
  this.timeout(120_000);
  const LIMIT = 5;
  let chain: LocalChain;
  let provider: CountingProxy;
  let limited: TestService;
  let cached: TestService;

  before(async () => {
    chain = await startLocalChain();
    provider = await startCountingProxy(chain.url);
    const env = {
      ADDRESS_ETHEREUM: toChecksumAddress(chain.accounts[9]!.address),
      ETHEREUM_RPC_URL: provider.url,
      TOPUP_WINC_PER_ETH: String(10n ** 15n),
      TOPUP_CHECK_INTERVAL_MS: '86400000',
    };
    limited = await startTestService({ ...env, TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE: String(LIMIT), TOPUP_UNKNOWN_TX_CACHE_MS: '0' });
    cached = await startTestService({ ...env, TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE: '0', TOPUP_UNKNOWN_TX_CACHE_MS: '3600000' });
  });
  after(async () => {
    await limited?.close();
    await cached?.close();
    await provider?.close();
    await chain?.stop();
  });

  const claim = (service: TestService, txId: string) =>
    fetch(`${service.url}/account/balance/ethereum`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx_id: txId }),
    });
  const unknownHash = () => `0x${randomBytes(32).toString('hex')}`;
  const lookups = () => provider.requests.filter((r) => r.rpcMethod === 'eth_getTransactionByHash').length;

  it(`answers one client's claims past ${LIMIT} a minute with 429 and Retry-After, and asks the chain for ${LIMIT} only`, async () => {
    const before = lookups();
    const answers = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const answer = await claim(limited, unknownHash());
        return { status: answer.status, text: await answer.text(), retryAfter: answer.headers.get('retry-after') };
      }),
    );
    const refused = answers.filter((a) => a.status === 400);
    const limitedOnes = answers.filter((a) => a.status === 429);
    expect([refused.length, limitedOnes.length]).to.deep.equal([LIMIT, 40 - LIMIT]);
    expect(new Set(refused.map((a) => a.text))).to.deep.equal(new Set(['Invalid transaction']));
    expect(new Set(limitedOnes.map((a) => a.text))).to.deep.equal(new Set(['Too Many Requests']));
    for (const { retryAfter } of limitedOnes) expect(Number(retryAfter), String(retryAfter)).to.be.within(1, 60);
    expect(lookups() - before).to.equal(LIMIT);
  });

  it('asks the chain once for a transaction it did not know, however often and however spelled it is claimed', async () => {
    const before = lookups();
    const hash = unknownHash();
    const spellings = [hash, `0x${hash.slice(2).toUpperCase()}`, `0X${hash.slice(2)}`];
    // at once (one read in flight for them all), then one after another (from memory)
    const together = await Promise.all(spellings.map((spelled) => claim(cached, spelled)));
    const after = [];
    for (const spelled of spellings) after.push(await claim(cached, spelled));
    for (const answer of [...together, ...after]) expect([answer.status, await answer.text()]).to.deep.equal([400, 'Invalid transaction']);
    expect(lookups() - before).to.equal(1);
  });
});
