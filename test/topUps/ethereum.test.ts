import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Uploader } from '@irys/upload';
import { Ethereum } from '@irys/upload-ethereum';
import { startTestService, type TestService } from '../support/testService.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { toChecksumAddress } from '../../src/verify/index.js';
import { history } from '../../src/history/history.js';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { createEthereumTransfers } from '../../src/adapters/ethereum/rpcTransfers.js';
import { accountStream } from '../../src/domain/account/ids.js';
import { topUpStream } from '../../src/domain/topUp/ids.js';
import { eventually } from '../support/eventually.js';

const FREE = 1000;
const RATE = 10n; // winc per byte
/** winc per ETH: 2 × 10^15, so a gwei (10^9 wei) is 2,000,000 winc */
const WINC_PER_ETH = 2n * 10n ** 15n;
const GWEI = 10n ** 9n;
const CONFIRMATIONS = 3;
const wincOf = (wei: bigint) => (wei * WINC_PER_ETH) / 10n ** 18n;

type Irys = Awaited<ReturnType<ReturnType<typeof Uploader>['build']>>;

describe('top-ups in ETH (ganache as the chain, through ETHEREUM_RPC_URL)', function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let service: TestService;
  let user: string;
  let serviceAddress: string;
  let irys: Irys;

  before(async () => {
    chain = await startLocalChain();
    user = toChecksumAddress(chain.accounts[0]!.address);
    serviceAddress = toChecksumAddress(chain.accounts[9]!.address);
    service = await startTestService({
      FREE_UPLOAD_LIMIT_BYTES: String(FREE),
      PRICE_WINC_PER_BYTE: String(RATE),
      // as an operator writes it, in lower case: compared as an address, not as text
      ADDRESS_ETHEREUM: serviceAddress.toLowerCase(),
      ETHEREUM_RPC_URL: chain.url,
      TOPUP_WINC_PER_ETH: WINC_PER_ETH.toString(),
      TOPUP_ETHEREUM_CONFIRMATIONS: String(CONFIRMATIONS),
      TOPUP_CHECK_INTERVAL_MS: '86400000',
      // this suite's claims are not limited per client (claimLimits.test.ts is where they are)
      TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE: '0',
    });
    irys = await Uploader(Ethereum).withWallet(chain.accounts[0]!.privateKey).withRpc(chain.url).bundlerUrl(service.url);
  });
  after(async () => {
    await service?.close();
    await chain?.stop();
  });

  const claim = (txId: string) =>
    fetch(`${service.url}/account/balance/ethereum`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx_id: txId }),
    });
  const balance = async () => BigInt((await irys.getBalance()).toString(10));

  it('Irys fund() sends ETH and claims it: credited once at the configured rate; an upload refused with 402 before is accepted after', async () => {
    const before = await balance();
    const payload = randomBytes(5000);
    await irys.upload(payload).then(
      () => expect.fail('an unfunded upload was accepted'),
      (error: Error) => expect(error.message).to.include('402'),
    );
    // Irys waits for 5 confirmations (up to 30 s) before it claims: blocks come while it waits
    let funding = true;
    const miner = (async () => {
      while (funding) {
        await chain.mine();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const wei = 200n * GWEI;
    const funded = await irys.fund(wei.toString()).finally(() => (funding = false));
    await miner;
    expect({ quantity: funded.quantity, target: funded.target.toLowerCase() }).to.deep.equal({
      quantity: wei.toString(),
      target: serviceAddress.toLowerCase(),
    });
    expect(await balance()).to.equal(before + wincOf(wei));

    const receipt = await irys.upload(payload);
    expect(receipt.id).to.be.a('string');
    const status = (await (await fetch(`${service.url}/tx/${receipt.id}/status`)).json()) as { winc: string };
    expect(await balance()).to.equal(before + wincOf(wei) - BigInt(status.winc));

    // Irys' own claim of the same transaction again (it retries, then gives up): refused, nothing credited
    const after = await balance();
    await irys.funder.submitFundTransaction(funded.id).then(
      () => expect.fail('a second claim succeeded'),
      (error: Error) => expect(error.message).to.include('400 Invalid transaction'),
    );
    expect(await balance()).to.equal(after);
  });

  it('a transfer short of its confirmations is claimed (confirmed: false) and credited by the pass once it has them, once', async () => {
    const before = await balance();
    const wei = 3n * GWEI;
    const txId = await chain.send(user, serviceAddress, wei);
    const answer = await claim(txId);
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as { confirmed: boolean; winc: string; pendingTransaction: Record<string, unknown> };
    expect([body.confirmed, body.winc]).to.deep.equal([false, wincOf(wei).toString()]);
    expect(body.pendingTransaction).to.deep.include({
      transactionId: txId,
      tokenType: 'ethereum',
      transactionQuantity: wei.toString(),
      destinationAddress: user,
      transactionSenderAddress: user,
    });
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 1, expired: 0 });
    expect(await balance()).to.equal(before);
    await chain.mine(CONFIRMATIONS - 1);
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 1, pending: 0, expired: 0 });
    expect(await balance()).to.equal(before + wincOf(wei));
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 0, expired: 0 });
    expect(await balance()).to.equal(before + wincOf(wei));
  });

  /** other spellings of a hash (`0x` and 64 lower-case hex digits) that an Ethereum node reads as the same transaction */
  const spellingsOf = (hash: string) => {
    const digits = hash.slice(2);
    const mixed = [...digits].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join('');
    return [`0x${digits.toUpperCase()}`, `0x${mixed}`, `0X${digits}`, `0X${digits.toUpperCase()}`];
  };

  it('a confirmed transfer claimed again with its hash in upper or mixed case is Invalid transaction, credited once', async () => {
    const before = await balance();
    const txId = await chain.send(user, serviceAddress, 7n * GWEI);
    await chain.mine(CONFIRMATIONS);
    // the node reads any case as the same transaction (which is what made each spelling a claim of its own)
    const spellings = spellingsOf(txId);
    expect(((await chain.request('eth_getTransactionByHash', [spellings[0]])) as { hash: string }).hash).to.equal(txId);
    const first = await claim(spellings[1]!);
    expect(first.status).to.equal(200);
    expect(((await first.json()) as { creditedTransaction: { transactionId: string } }).creditedTransaction.transactionId).to.equal(txId);
    for (const spelled of [txId, ...spellings]) {
      const again = await claim(spelled);
      expect([again.status, await again.text()], spelled).to.deep.equal([400, 'Invalid transaction']);
    }
    expect(await balance()).to.equal(before + wincOf(7n * GWEI));
    let lines = '';
    for await (const piece of history({ eventStore: service.eventStore, readStore: service.readStore }, user)) lines += piece;
    expect(lines.split(`(credit ethereum:${txId})`)).to.have.length(2);
  });

  it('a pending claim blocks the other spellings of its hash: credited once when confirmed', async () => {
    const before = await balance();
    const txId = await chain.send(user, serviceAddress, 11n * GWEI);
    const [upper, mixed] = spellingsOf(txId);
    const first = await claim(upper!);
    expect([first.status, ((await first.json()) as { confirmed: boolean }).confirmed]).to.deep.equal([200, false]);
    for (const spelled of [txId, mixed!]) expect((await claim(spelled)).status, spelled).to.equal(400);
    await chain.mine(CONFIRMATIONS);
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 1, pending: 0, expired: 0 });
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 0, expired: 0 });
    for (const spelled of spellingsOf(txId)) expect((await claim(spelled)).status, spelled).to.equal(400);
    expect(await balance()).to.equal(before + wincOf(11n * GWEI));
  });

  it('a claim and credit an earlier version stored under an upper-case hash block the lower-case one (read canonical)', async () => {
    const before = await balance();
    const wei = 13n * GWEI;
    const txId = await chain.send(user, serviceAddress, wei);
    await chain.mine(CONFIRMATIONS);
    const block = Number(BigInt(((await chain.request('eth_getTransactionByHash', [txId])) as { blockNumber: string }).blockNumber));
    const spelled = spellingsOf(txId)[0]!;
    const claimed = { token: 'ethereum', txId: spelled, sender: user, address: user, target: serviceAddress, quantity: wei.toString() };
    const metadata = { correlationId: 'earlier-version', schemaVersion: 1 };
    await service.eventStore.append(
      topUpStream(`ethereum:${spelled}`),
      [{ id: randomUUID(), type: 'TopUpClaimed', data: { ...claimed, winc: wincOf(wei).toString(), confirmed: true, timestamp: Date.now() }, metadata }],
      'no_stream',
    );
    let revision = -1n;
    for await (const recorded of service.eventStore.readStream(accountStream(user))) revision = recorded.revision;
    const onChain = { token: 'ethereum', txId: spelled, sender: user, target: serviceAddress, quantity: wei.toString(), blockHeight: block };
    const credit = { address: user, winc: wincOf(wei).toString(), creditId: `ethereum:${spelled}`, onChain, timestamp: Date.now() };
    const { position } = await service.eventStore.append(
      accountStream(user),
      [{ id: randomUUID(), type: 'AccountCredited', data: credit, metadata }],
      revision < 0n ? 'no_stream' : revision,
    );
    await service.projections.waitFor(position, 10_000);
    expect(await balance()).to.equal(before + wincOf(wei));

    for (const again of [txId, spellingsOf(txId)[1]!]) {
      const answer = await claim(again);
      expect([answer.status, await answer.text()], again).to.deep.equal([400, 'Invalid transaction']);
    }
    expect(await balance()).to.equal(before + wincOf(wei));
  });

  it('a pending claim an earlier version stored under an upper-case hash is credited once by the pass; every spelling is refused after', async () => {
    const before = await balance();
    const wei = 17n * GWEI;
    const txId = await chain.send(user, serviceAddress, wei);
    const spelled = spellingsOf(txId)[0]!;
    const claimed = { token: 'ethereum', txId: spelled, sender: user, address: user, target: serviceAddress, quantity: wei.toString() };
    const { position } = await service.eventStore.append(
      topUpStream(`ethereum:${spelled}`),
      [
        {
          id: randomUUID(),
          type: 'TopUpClaimed',
          data: { ...claimed, winc: wincOf(wei).toString(), confirmed: false, timestamp: Date.now() },
          metadata: { correlationId: 'earlier-version', schemaVersion: 1 },
        },
      ],
      'no_stream',
    );
    await service.projections.waitFor(position, 10_000);
    await chain.mine(CONFIRMATIONS);
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 1, pending: 0, expired: 0 });
    expect(await service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 0, expired: 0 });
    for (const again of [txId, ...spellingsOf(txId)]) expect((await claim(again)).status, again).to.equal(400);
    expect(await balance()).to.equal(before + wincOf(wei));
    let lines = '';
    for await (const piece of history({ eventStore: service.eventStore, readStore: service.readStore }, user)) lines += piece;
    expect(lines).to.include(`(credit ethereum:${txId}): top-up, ethereum transaction ${txId} of ${wei}`);
  });

  it('refuses a transfer to another address, an unknown transaction hash and a malformed one with Invalid transaction', async () => {
    const before = await balance();
    const elsewhere = await chain.send(user, chain.accounts[8]!.address, GWEI);
    await chain.mine(CONFIRMATIONS);
    for (const txId of [elsewhere, `0x${'ab'.repeat(32)}`, '0x1234']) {
      const answer = await claim(txId);
      expect([answer.status, await answer.text()], txId).to.deep.equal([400, 'Invalid transaction']);
    }
    expect(await balance()).to.equal(before);
  });

  it('the history shows each ETH top-up with its transaction; the audit re-reads them through the RPC endpoint', async () => {
    const txId = await chain.send(user, serviceAddress, GWEI);
    await chain.mine(CONFIRMATIONS);
    expect((await claim(txId)).status).to.equal(200);
    const block = Number(BigInt(((await chain.request('eth_getTransactionByHash', [txId])) as { blockNumber: string }).blockNumber));
    let lines = '';
    for await (const piece of history({ eventStore: service.eventStore, readStore: service.readStore }, user)) lines += piece;
    expect(lines).to.include(
      `+${wincOf(GWEI)} winc (credit ethereum:${txId}): top-up, ethereum transaction ${txId} of ${GWEI} from ${user} to ${serviceAddress}, block ${block}`,
    );
    const findings: Finding[] = [];
    const transfers = new Map([['ethereum', createEthereumTransfers({ rpcUrl: chain.url, timeoutMs: 10_000 })]]);
    const { checked } = await runAudit(
      { eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, transfers, now: Date.now },
      (f) => findings.push(f),
    );
    expect(findings.filter((f) => f.kind === 'top-up-mismatch' || f.kind === 'top-up-twice')).to.deep.equal([]);
    // the Irys funding, the pending one, the four of other spellings and this one
    expect([checked.topUps, checked.topUpsNotChecked]).to.deep.equal([7, 0]);
  });

  it('the periodic check (TOPUP_CHECK_INTERVAL_MS) credits a claimed transfer once it is confirmed, without another request', async () => {
    const periodic = await startTestService({
      ADDRESS_ETHEREUM: serviceAddress,
      ETHEREUM_RPC_URL: chain.url,
      TOPUP_WINC_PER_ETH: WINC_PER_ETH.toString(),
      TOPUP_ETHEREUM_CONFIRMATIONS: String(CONFIRMATIONS),
      TOPUP_CHECK_INTERVAL_MS: '100',
    });
    try {
      const read = async () =>
        BigInt(((await (await fetch(`${periodic.url}/account/balance/ethereum?address=${user}`)).json()) as { balance: string }).balance);
      const txId = await chain.send(user, serviceAddress, 5n * GWEI);
      const answer = await fetch(`${periodic.url}/account/balance/ethereum`, { method: 'POST', body: JSON.stringify({ tx_id: txId }) });
      expect(((await answer.json()) as { confirmed: boolean }).confirmed).to.equal(false);
      expect(await read()).to.equal(0n);
      await chain.mine(CONFIRMATIONS);
      expect(await eventually(read, (winc) => winc !== 0n, 'the transfer credited', 30_000, 50)).to.equal(wincOf(5n * GWEI));
    } finally {
      await periodic.close();
    }
  });

  it('answers 503 Service unavailable when the RPC endpoint cannot be read, and records no claim (the same claim succeeds later)', async () => {
    const closed = await startTestService({
      ADDRESS_ETHEREUM: serviceAddress,
      // nothing listens on port 9 (discard) of 127.0.0.1 here
      ETHEREUM_RPC_URL: 'http://127.0.0.1:9',
      TOPUP_WINC_PER_ETH: WINC_PER_ETH.toString(),
      GATEWAY_TIMEOUT_MS: '2000',
    });
    try {
      const txId = await chain.send(user, serviceAddress, GWEI);
      const answer = await fetch(`${closed.url}/account/balance/ethereum`, { method: 'POST', body: JSON.stringify({ tx_id: txId }) });
      expect([answer.status, await answer.text()]).to.deep.equal([503, 'Service unavailable']);
      await chain.mine(CONFIRMATIONS);
      expect((await claim(txId)).status).to.equal(200);
    } finally {
      await closed.close();
    }
  });
});
