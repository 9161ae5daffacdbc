import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { BaseEthToken, PolygonToken, TurboFactory } from '@ardrive/turbo-sdk';
import { startTestService, type TestService } from '../support/testService.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { toChecksumAddress } from '../../src/verify/index.js';
import { history } from '../../src/history/history.js';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { transferSourcesOf } from '../../src/app/accounts/topUpChains.js';
import { parseConfig } from '../../src/config.js';

/**
 * Top-ups on the EVM chains beyond Ethereum that the clients name (turbo-sdk's `base-eth`, and `pol` /
 * `matic` for Polygon: ardriveapp/turbo-sdk packages/turbo-sdk/src/common/token/index.ts at 1be4559),
 * configured by TOPUP_EVM_CHAINS and read by the same code as ETH. Each chain is a ganache of its own
 * chain id (Ethereum's 1337 here, Base's 8453, Polygon's 137): one hash is a transaction of one chain only.
 */
const WINC_PER_ETH = 2n * 10n ** 15n;
const WINC_PER_BASE_ETH = 3n * 10n ** 15n;
const WINC_PER_POL = 5n * 10n ** 12n;
const GWEI = 10n ** 9n;
const CONFIRMATIONS = 3;
const BASE = 8453;
const POLYGON = 137;
const wincOf = (wei: bigint, rate: bigint) => (wei * rate) / 10n ** 18n;
const polling = { maxAttempts: 50, pollingIntervalMs: 100, initialBackoffMs: 0 };

describe('top-ups on Base and Polygon (TOPUP_EVM_CHAINS; a ganache per chain id)', function () {
  this.timeout(120_000);
  let ethereum: LocalChain;
  let base: LocalChain;
  let polygon: LocalChain;
  let service: TestService;
  let user: string;
  let serviceAddress: string;
  let env: Record<string, string>;

  before(async () => {
    [ethereum, base, polygon] = await Promise.all([startLocalChain(), startLocalChain({ chainId: BASE }), startLocalChain({ chainId: POLYGON })]);
    // ganache's deterministic accounts are the same on every chain: one user, one service address
    user = toChecksumAddress(base.accounts[0]!.address);
    serviceAddress = toChecksumAddress(base.accounts[9]!.address);
    env = {
      ADDRESS_ETHEREUM: serviceAddress,
      ETHEREUM_RPC_URL: ethereum.url,
      TOPUP_WINC_PER_ETH: WINC_PER_ETH.toString(),
      TOPUP_ETHEREUM_CONFIRMATIONS: String(CONFIRMATIONS),
      TOPUP_EVM_CHAINS: JSON.stringify([
        {
          token: 'base-eth',
          chainId: BASE,
          rpcUrl: base.url,
          address: serviceAddress.toLowerCase(),
          wincPerToken: WINC_PER_BASE_ETH.toString(),
          confirmations: CONFIRMATIONS,
        },
        { token: 'pol', chainId: POLYGON, rpcUrl: polygon.url, address: serviceAddress, wincPerToken: WINC_PER_POL.toString(), confirmations: 1 },
      ]),
      TOPUP_CHECK_INTERVAL_MS: '86400000',
      TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE: '0',
    };
    service = await startTestService(env);
  });
  after(async () => {
    await service?.close();
    await Promise.all([ethereum?.stop(), base?.stop(), polygon?.stop()]);
  });

  const claim = (token: string, txId: string) => fetch(`${service.url}/v1/account/balance/${token}`, { method: 'POST', body: JSON.stringify({ tx_id: txId }) });
  const balance = async () => BigInt(((await (await fetch(`${service.url}/v1/account/balance/base-eth?address=${user}`)).json()) as { winc: string }).winc);

  it("/info names the service's address under base-eth, matic and pol (turbo-sdk funds the address /info names for its token)", async () => {
    const info = (await (await fetch(`${service.url}/v1/info`)).json()) as { addresses: Record<string, string> };
    expect(info.addresses).to.deep.include({ ethereum: serviceAddress, 'base-eth': serviceAddress, matic: serviceAddress, pol: serviceAddress });
  });

  it("turbo-sdk's topUpWithTokens in base-eth: pending short of its confirmations, credited once at Base's rate by the pass, never twice", async () => {
    const turbo = TurboFactory.authenticated({
      privateKey: base.accounts[0]!.privateKey,
      token: 'base-eth',
      uploadServiceConfig: { url: service.url },
      paymentServiceConfig: { url: service.url },
      tokenTools: new BaseEthToken({ gatewayUrl: base.url, pollingOptions: polling }),
    });
    const before = await balance();
    const wei = 200n * GWEI;
    const result = await turbo.topUpWithTokens({ tokenAmount: wei.toString() });
    expect(result).to.deep.include({
      quantity: wei.toString(),
      winc: wincOf(wei, WINC_PER_BASE_ETH).toString(),
      owner: user,
      token: 'base-eth',
      status: 'pending',
      target: serviceAddress,
    });
    expect(await balance()).to.equal(before);
    await base.mine(CONFIRMATIONS - 2);
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 1, expired: 0 });
    await base.mine(1);
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 1, pending: 0, expired: 0 });
    expect(await balance()).to.equal(before + wincOf(wei, WINC_PER_BASE_ETH));
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 0, expired: 0 });
    // turbo-sdk's own claim again, and the same hash claimed as the other chains: Invalid transaction
    await turbo.submitFundTransaction({ txId: result.id }).then(
      () => expect.fail('a second claim succeeded'),
      (error: Error) => expect(error.message).to.match(/400/),
    );
    for (const token of ['ethereum', 'matic', 'pol']) {
      const again = await claim(token, result.id);
      expect([again.status, await again.text()], token).to.deep.equal([400, 'Invalid transaction']);
    }
    expect(await balance()).to.equal(before + wincOf(wei, WINC_PER_BASE_ETH));
    let lines = '';
    for await (const piece of history({ eventStore: service.eventStore, readStore: service.readStore }, user)) lines += piece;
    expect(lines).to.include(`(credit base-eth:${result.id}): top-up, base-eth transaction ${result.id} of ${wei} from ${user} to ${serviceAddress}`);
  });

  it('a Base transaction claimed as ethereum is refused (Ethereum does not know it) and can still be claimed on Base, once', async () => {
    const before = await balance();
    const wei = 7n * GWEI;
    const txId = await base.send(user, serviceAddress, wei);
    await base.mine(CONFIRMATIONS);
    const wrong = await claim('ethereum', txId);
    expect([wrong.status, await wrong.text()]).to.deep.equal([400, 'Invalid transaction']);
    const right = await claim('base-eth', txId);
    expect(right.status).to.equal(200);
    expect(((await right.json()) as { creditedTransaction: { tokenType: string } }).creditedTransaction.tokenType).to.equal('base-eth');
    expect(await balance()).to.equal(before + wincOf(wei, WINC_PER_BASE_ETH));
  });

  it('one Polygon transaction claimed as pol and as matic is one claim: credited once, under matic', async () => {
    const before = await balance();
    const wei = 3n * 10n ** 15n;
    const txId = await polygon.send(user, serviceAddress, wei);
    const first = await claim('pol', txId);
    expect(first.status).to.equal(200);
    expect(await first.json()).to.deep.include({ confirmed: true, winc: wincOf(wei, WINC_PER_POL).toString() });
    for (const token of ['matic', 'pol']) {
      const again = await claim(token, txId);
      expect([again.status, await again.text()], token).to.deep.equal([400, 'Invalid transaction']);
    }
    expect(await balance()).to.equal(before + wincOf(wei, WINC_PER_POL));
    const quote = (await (await fetch(`${service.url}/v1/price/pol/${10n ** 18n}`)).json()) as { winc: string };
    expect(quote.winc).to.equal(WINC_PER_POL.toString());
  });

  it('an ETH transaction with the same sender and nonce as a Base one has another hash: each credits on its own chain only', async () => {
    const before = await balance();
    // the ganaches' accounts start alike: the first transfers of a fresh sender on two chains differ by chain id alone
    const sender = toChecksumAddress(base.accounts[5]!.address);
    const onEthereum = await ethereum.send(sender, serviceAddress, GWEI);
    const onBase = await base.send(sender, serviceAddress, GWEI);
    expect(onEthereum).to.not.equal(onBase);
    await Promise.all([ethereum.mine(CONFIRMATIONS), base.mine(CONFIRMATIONS)]);
    expect([(await claim('base-eth', onEthereum)).status, (await claim('ethereum', onBase)).status]).to.deep.equal([400, 400]);
    expect([(await claim('ethereum', onEthereum)).status, (await claim('base-eth', onBase)).status]).to.deep.equal([200, 200]);
    expect(await balance()).to.equal(before);
    const read = async (address: string) =>
      BigInt(((await (await fetch(`${service.url}/v1/account/balance/ethereum?address=${address}`)).json()) as { winc: string }).winc);
    expect(await read(sender)).to.equal(wincOf(GWEI, WINC_PER_ETH) + wincOf(GWEI, WINC_PER_BASE_ETH));
  });

  it('the audit re-reads each chain through its own endpoint: no mismatch', async () => {
    const findings: Finding[] = [];
    const { checked } = await runAudit(
      {
        eventStore: service.eventStore,
        readStore: service.readStore,
        blobStore: service.blobStore,
        transfers: transferSourcesOf(parseConfig(env)),
        now: Date.now,
      },
      (f) => findings.push(f),
    );
    expect(findings.filter((f) => f.kind.startsWith('top-up'))).to.deep.equal([]);
    expect([checked.topUps, checked.topUpsNotChecked]).to.deep.equal([5, 0]);
  });

  it('an RPC endpoint of another chain than configured stops the start, naming it', async () => {
    const error = await startTestService({
      ...env,
      TOPUP_EVM_CHAINS: JSON.stringify([{ token: 'base-eth', chainId: BASE, rpcUrl: polygon.url, address: serviceAddress, wincPerToken: '1' }]),
    }).then(
      (started) => started.close().then(() => undefined),
      (e: Error) => e,
    );
    expect(error?.message).to.equal(`${polygon.url} is chain ${POLYGON}, not chain ${BASE} as configured`);
  });

  it('TOPUP_ETHEREUM_CHAIN_ID: an ETH endpoint of another chain stops the start (unset, as in this suite, it is not asked)', async () => {
    const error = await startTestService({ ...env, TOPUP_EVM_CHAINS: '', TOPUP_ETHEREUM_CHAIN_ID: '1' }).then(
      (started) => started.close().then(() => undefined),
      (e: Error) => e,
    );
    expect(error?.message).to.equal(`${ethereum.url} is chain 1337, not chain 1 as configured`);
  });

  it('an endpoint down at start is checked before its first claim: another chain then answers 503 and records nothing', async () => {
    // configured as Base's, the endpoint answers 503 at start, then passes on to Polygon's chain
    let down = true;
    const endpoint = createServer((req, res) => {
      if (down) return void res.writeHead(503).end();
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        void fetch(polygon.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(parts) }).then(async (answer) =>
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
        );
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const started = await startTestService({
      TOPUP_EVM_CHAINS: JSON.stringify([
        {
          token: 'base-eth',
          chainId: BASE,
          rpcUrl: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`,
          address: serviceAddress,
          wincPerToken: '1',
        },
      ]),
    });
    try {
      down = false;
      const txId = await polygon.send(user, serviceAddress, GWEI);
      const answer = await fetch(`${started.url}/v1/account/balance/base-eth`, { method: 'POST', body: JSON.stringify({ tx_id: txId }) });
      expect([answer.status, await answer.text()]).to.deep.equal([503, 'Service unavailable']);
      expect(await started.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 0, expired: 0 });
    } finally {
      await started.close();
      await new Promise((resolve) => endpoint.close(resolve));
    }
  });

  it('refuses a configuration that names one chain twice (pol and matic, or one chain id under two tokens)', () => {
    const chain = (token: string, chainId: number) => ({ token, chainId, rpcUrl: base.url, address: serviceAddress, wincPerToken: '1' });
    expect(() => parseConfig({ TOPUP_EVM_CHAINS: JSON.stringify([chain('pol', 137), chain('matic', 138)]) })).to.throw('matic is configured twice');
    expect(() => parseConfig({ TOPUP_EVM_CHAINS: JSON.stringify([chain('base-eth', 8453), chain('matic', 8453)]) })).to.throw(
      'chain id 8453 is configured twice',
    );
    expect(() => parseConfig({ ...env, TOPUP_EVM_CHAINS: JSON.stringify([chain('ethereum', 1)]) })).to.throw('ethereum is configured twice');
  });
});
