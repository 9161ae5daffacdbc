import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import Arweave from 'arweave';
import { ArweaveToken, TurboFactory } from '@ardrive/turbo-sdk';
import { ArweaveSigner } from 'arbundles';
import { withArlocalService } from '../support/arlocalService.js';
import { arweaveJwk, asBody, signedItem } from '../support/items.js';
import { history } from '../../src/history/history.js';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { createArweaveTransfers } from '../../src/adapters/gateway/arweaveTransfers.js';
import { runScript } from '../support/runScript.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';

const FREE = 1000;
const RATE = 10n; // winc per byte
const CONFIRMATIONS = 2;

/** the arweave native address of a JWK: base64url(sha256(modulus)) */
const addressOf = (jwk: { n: string }) => createHash('sha256').update(Buffer.from(jwk.n, 'base64url')).digest('base64url');
const USER = addressOf(arweaveJwk);

describe('top-ups in AR (arlocal as the gateway)', function () {
  this.timeout(120_000);
  const env = withArlocalService({
    FREE_UPLOAD_LIMIT_BYTES: String(FREE),
    PRICE_WINC_PER_BYTE: String(RATE),
    TOPUP_ARWEAVE_CONFIRMATIONS: String(CONFIRMATIONS),
    // the pass is run by the tests (creditPending), never by the timer while they look
    TOPUP_CHECK_INTERVAL_MS: '86400000',
    // a claim of a transaction the gateway no longer knows expires a second after it was made
    TOPUP_PENDING_MAX_AGE_MS: '1000',
    // this suite's claims are not limited per client (claimLimits.test.ts is where they are)
    TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE: '0',
  });
  let arweave: Arweave;

  before(async () => {
    const url = new URL(env.arlocal.url);
    arweave = new Arweave({ host: url.hostname, port: Number(url.port), protocol: 'http' });
    await env.arlocal.mint(USER, '1000000000000000');
  });

  /** sends `winston` from the test user to `target` on arlocal (posted, not mined): its id */
  async function send(target: string, winston: bigint): Promise<string> {
    const tx = await arweave.createTransaction({ target, quantity: winston.toString(), data: '' }, arweaveJwk);
    await arweave.transactions.sign(tx, arweaveJwk);
    const posted = await arweave.transactions.post(tx);
    expect(posted.status, JSON.stringify(posted.data)).to.equal(200);
    return tx.id;
  }
  const claim = (txId: string, token = 'arweave', prefix = '') =>
    fetch(`${env.service.url}${prefix}/account/balance/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx_id: txId }),
    });
  const balance = async (address = USER) =>
    BigInt(((await (await fetch(`${env.service.url}/account/balance/arweave?address=${address}`)).json()) as { balance: string }).balance);
  const upload = async (bytes: number) => {
    const item = await signedItem(new ArweaveSigner(arweaveJwk), randomBytes(bytes));
    return fetch(`${env.service.url}/tx/arweave`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: asBody(item.getRaw()) });
  };

  it('the Irys fund() claim credits a confirmed transfer once: an upload refused with 402 before is accepted after', async () => {
    const before = await balance();
    const refused = await upload(50_000);
    expect(refused.status).to.equal(402);
    const price = 50_000n * RATE * 2n; // more than the item (header included) costs
    const txId = await send(env.service.walletAddress, price);
    await env.arlocal.mine(1);
    await env.arlocal.mine(CONFIRMATIONS);

    const answer = await claim(txId);
    expect(answer.status).to.equal(200);
    expect(await answer.json()).to.deep.equal({
      confirmed: true,
      winc: price.toString(),
      message: 'Transaction credited',
      creditedTransaction: {
        transactionId: txId,
        tokenType: 'arweave',
        transactionQuantity: price.toString(),
        winstonCreditAmount: price.toString(),
        destinationAddress: USER,
        destinationAddressType: 'arweave',
        transactionSenderAddress: USER,
        blockHeight: (await arweave.transactions.getStatus(txId)).confirmed!.block_height,
      },
    });
    expect(await balance()).to.equal(before + price);
    expect((await upload(50_000)).status).to.equal(200);

    // the same transaction again: refused, nothing more credited
    const again = await claim(txId, 'arweave', '/v1');
    expect(again.status).to.equal(400);
    expect(await again.text()).to.equal('Invalid transaction');
    expect(again.statusText).to.equal('Invalid transaction');
  });

  it('a pending transfer is claimed at once (confirmed: false) and credited once it has its confirmations, by the pass, once', async () => {
    const before = await balance();
    const txId = await send(env.service.walletAddress, 7_000n);
    const answer = await claim(txId);
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as { confirmed: boolean; winc: string; pendingTransaction: unknown };
    expect([body.confirmed, body.winc]).to.deep.equal([false, '7000']);
    expect(body.pendingTransaction).to.deep.include({ transactionId: txId, winstonCreditAmount: '7000', destinationAddress: USER });

    expect(await env.service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 1, expired: 0 });
    await env.arlocal.mine(1);
    // in a block, short of its confirmations
    expect(await env.service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 1, expired: 0 });
    expect(await balance()).to.equal(before);
    await env.arlocal.mine(CONFIRMATIONS);
    expect(await env.service.topUps.creditPending()).to.deep.equal({ credited: 1, pending: 0, expired: 0 });
    expect(await balance()).to.equal(before + 7_000n);
    expect(await env.service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 0, expired: 0 });
    expect(await balance()).to.equal(before + 7_000n);
    // claimed while pending: a second claim is refused too
    expect((await claim(txId)).status).to.equal(400);
  });

  it('credits once when the same transaction is claimed several times at once: one 200, the others Invalid transaction', async () => {
    const before = await balance();
    const txId = await send(env.service.walletAddress, 2_500n);
    await env.arlocal.mine(1 + CONFIRMATIONS);
    const answers = await Promise.all([claim(txId), claim(txId, 'arweave', '/v1'), claim(txId), claim(txId, 'arweave', '/v1')]);
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 400, 400, 400]);
    expect(await balance()).to.equal(before + 2_500n);
  });

  it('refuses a transfer to another address, an unknown transaction and one of another shape with Invalid transaction', async () => {
    const before = await balance();
    const elsewhere = await send('x'.repeat(43), 5_000n);
    await env.arlocal.mine(1 + CONFIRMATIONS);
    for (const txId of [elsewhere, 'u'.repeat(43), 'not-a-transaction']) {
      const answer = await claim(txId);
      expect([answer.status, await answer.text()], txId).to.deep.equal([400, 'Invalid transaction']);
    }
    expect(await balance()).to.equal(before);
  });

  it('answers Invalid token for a token without top-ups and Invalid request for a body without tx_id', async () => {
    const solana = await claim('u'.repeat(43), 'solana');
    expect([solana.status, await solana.text()]).to.deep.equal([400, 'Invalid token']);
    const bad = await fetch(`${env.service.url}/account/balance/arweave`, { method: 'POST', body: '{"id":"x"}' });
    expect([bad.status, await bad.text()]).to.deep.equal([400, 'Invalid request']);
  });

  it("turbo-sdk's topUpWithTokens sends AR and claims it: pending, then credited once confirmed", async () => {
    const turbo = TurboFactory.authenticated({
      privateKey: arweaveJwk,
      token: 'arweave',
      uploadServiceConfig: { url: env.service.url },
      paymentServiceConfig: { url: env.service.url },
      tokenTools: new ArweaveToken({ gatewayUrl: env.arlocal.url, pollingOptions: { maxAttempts: 50, pollingIntervalMs: 200, initialBackoffMs: 0 } }),
    });
    const before = BigInt((await turbo.getBalance()).winc);
    const result = await turbo.topUpWithTokens({ tokenAmount: 123_456 });
    expect(result).to.deep.include({
      quantity: '123456',
      winc: '123456',
      owner: USER,
      recipient: USER,
      token: 'arweave',
      status: 'pending',
      target: env.service.walletAddress,
    });
    expect(BigInt((await turbo.getBalance()).winc)).to.equal(before);
    await env.arlocal.mine(1 + CONFIRMATIONS);
    expect(await env.service.topUps.creditPending()).to.deep.equal({ credited: 1, pending: 0, expired: 0 });
    expect(BigInt((await turbo.getBalance()).winc)).to.equal(before + 123_456n);
    // turbo's own retry of the claim is refused: nothing is credited twice
    await turbo.submitFundTransaction({ txId: result.id }).then(
      () => expect.fail('a second claim succeeded'),
      (error: Error) => expect(error.message).to.match(/400/),
    );
    expect(BigInt((await turbo.getBalance()).winc)).to.equal(before + 123_456n);
  });

  it("turbo-sdk's turboCreditDestinationAddress (a Turbo-Credit-Destination-Address tag) credits that account, not the sender's", async () => {
    const turbo = TurboFactory.authenticated({
      privateKey: arweaveJwk,
      token: 'arweave',
      uploadServiceConfig: { url: env.service.url },
      paymentServiceConfig: { url: env.service.url },
      tokenTools: new ArweaveToken({ gatewayUrl: env.arlocal.url, pollingOptions: { maxAttempts: 50, pollingIntervalMs: 200, initialBackoffMs: 0 } }),
    });
    const friend = 'friend'.padEnd(43, 'F');
    const senderBefore = await balance();
    const result = await turbo.topUpWithTokens({ tokenAmount: 9_000, turboCreditDestinationAddress: friend });
    expect(result).to.deep.include({ winc: '9000', owner: USER, recipient: friend, status: 'pending' });
    await env.arlocal.mine(1 + CONFIRMATIONS);
    expect(await env.service.topUps.creditPending()).to.deep.equal({ credited: 1, pending: 0, expired: 0 });
    expect(await balance(friend)).to.equal(9_000n);
    expect(await balance()).to.equal(senderBefore);
  });

  it("reads a pending transfer from the gateway's GraphQL index when the gateway answers its header 202 Pending, as Arweave nodes do", async () => {
    const txId = await send(env.service.walletAddress, 3_000n);
    // arlocal serves a pending header; an Arweave node answers 202 "Pending" without it
    const asNode: typeof fetch = async (input, init) => (String(input).endsWith(`/tx/${txId}`) ? new Response('Pending', { status: 202 }) : fetch(input, init));
    const transfers = createArweaveTransfers({ gatewayUrl: env.arlocal.url, timeoutMs: 10_000, fetch: asNode });
    expect(await transfers.transfer(txId)).to.deep.equal({
      txId,
      sender: USER,
      target: env.service.walletAddress,
      quantity: 3_000n,
      failed: false,
      status: { confirmed: false },
    });
    await env.arlocal.mine(1 + CONFIRMATIONS);
    expect((await transfers.transfer(txId))?.status).to.deep.include({ confirmed: true, confirmations: CONFIRMATIONS });
  });

  it('the history of the account shows each top-up with its transaction; the audit re-reads every top-up credit from the gateway', async () => {
    const txId = await send(env.service.walletAddress, 4_000n);
    await env.arlocal.mine(1 + CONFIRMATIONS);
    expect((await claim(txId)).status).to.equal(200);
    const block = (await arweave.transactions.getStatus(txId)).confirmed!.block_height;
    const lines: string[] = [];
    for await (const piece of history({ eventStore: env.service.eventStore, readStore: env.service.readStore }, USER)) lines.push(piece);
    expect(lines.join('')).to.match(/AccountCredited +\+4000 winc/);
    expect(lines.join('')).to.include(
      `+4000 winc (credit arweave:${txId}): top-up, arweave transaction ${txId} of 4000 from ${USER} to ${env.service.walletAddress}, block ${block}`,
    );

    // the claim itself, by the credit id the line names
    const claimLines: string[] = [];
    for await (const piece of history({ eventStore: env.service.eventStore, readStore: env.service.readStore }, `arweave:${txId}`)) claimLines.push(piece);
    expect(claimLines.join('')).to.include(
      `arweave transaction ${txId} of 4000 from ${USER} to ${env.service.walletAddress} claimed for ${USER}: 4000 winc, confirmed`,
    );

    const transfers = new Map([['arweave', createArweaveTransfers({ gatewayUrl: env.arlocal.url, timeoutMs: 10_000 })]]);
    const audit = async () => {
      const findings: Finding[] = [];
      const summary = await runAudit(
        { eventStore: env.service.eventStore, readStore: env.service.readStore, blobStore: env.service.blobStore, transfers, now: Date.now },
        (f) => findings.push(f),
      );
      return { findings: findings.filter((f) => f.kind === 'top-up-mismatch'), summary };
    };
    const clean = await audit();
    expect(clean.findings).to.deep.equal([]);
    expect(clean.summary.checked.topUps).to.be.greaterThan(0);
    expect(clean.summary.checked.topUpsNotChecked).to.equal(0);

    // a credit that names a transaction the chain has not: reported
    // canonical (the spare bits of its last character zero), as the service writes every id
    const forged = `${'f'.repeat(42)}c`;
    const onChain = { token: 'arweave', txId: forged, sender: USER, target: env.service.walletAddress, quantity: '1', blockHeight: block };
    await env.service.accounts.execute(
      { type: 'Credit', data: { address: USER, winc: 1n, creditId: `arweave:${forged}`, onChain, now: Date.now() } },
      { correlationId: 'test' },
    );
    expect((await audit()).findings).to.deep.equal([{ kind: 'top-up-mismatch', id: USER, detail: `arweave transaction ${forged} is unknown to the chain` }]);
    // and by `npm run audit` itself, reading the gateway the configuration names
    const run = await runScript('audit', [], { DATA_DIR: env.service.dataDir, WALLET_FILE: SERVICE_WALLET_FILE, GATEWAY_URL: env.arlocal.url });
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stdout).to.include(`top-up-mismatch      ${USER}  arweave transaction ${forged} is unknown to the chain`);
  });

  it('a pending claim whose transaction the gateway dropped expires (history shows it), and the transaction posted again is claimed and credited once', async () => {
    const before = await balance();
    const tx = await arweave.createTransaction({ target: env.service.walletAddress, quantity: '6000', data: '' }, arweaveJwk);
    await arweave.transactions.sign(tx, arweaveJwk);
    expect((await arweave.transactions.post(tx)).status).to.equal(200);
    expect(((await (await claim(tx.id)).json()) as { confirmed: boolean }).confirmed).to.equal(false);
    // the gateway forgets it, as a node drops a transaction that is never mined
    expect((await fetch(`${env.arlocal.url}/tx/${tx.id}`, { method: 'DELETE' })).status).to.equal(200);
    const deadline = Date.now() + 30_000;
    let pass = await env.service.topUps.creditPending();
    while (pass.expired === 0 && Date.now() < deadline) {
      expect(pass).to.deep.equal({ credited: 0, pending: 1, expired: 0 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      pass = await env.service.topUps.creditPending();
    }
    expect(pass).to.deep.equal({ credited: 0, pending: 0, expired: 1 });
    let lines = '';
    for await (const piece of history({ eventStore: env.service.eventStore, readStore: env.service.readStore }, `arweave:${tx.id}`)) lines += piece;
    expect(lines).to.match(new RegExp(`TopUpExpired +claim of arweave transaction ${tx.id} for ${USER} \\(made [^)]+\\) expired`));
    expect(await balance()).to.equal(before);

    // sent again (the same signed transaction), it is claimed again and credited once confirmed
    expect((await arweave.transactions.post(tx)).status).to.equal(200);
    await env.arlocal.mine(1 + CONFIRMATIONS);
    const again = await claim(tx.id);
    expect(((await again.json()) as { confirmed: boolean }).confirmed).to.equal(true);
    expect(await balance()).to.equal(before + 6_000n);
    expect((await claim(tx.id)).status).to.equal(400);
  });
});

describe('a top-up claim answered while the read models lag (a slow disk)', function () {
  this.timeout(120_000);
  let slow = false;
  const env = withArlocalService(
    { TOPUP_ARWEAVE_CONFIRMATIONS: String(CONFIRMATIONS), TOPUP_CHECK_INTERVAL_MS: '86400000', PROJECTION_WAIT_MS: '60000' },
    async (dataDir) => {
      const readStore = openSqliteReadStore({ path: join(dataDir, 'read.db') });
      const commit = readStore.commit.bind(readStore);
      // every commit of the read models takes 1.5 s more once the test says so
      readStore.commit = async (writes, checkpoints) => {
        if (slow) await sleep(1_500);
        return commit(writes, checkpoints);
      };
      return { readStore };
    },
  );

  it('answers a pending claim once the pending top-ups show it, as a credit is answered once credited', async () => {
    await env.arlocal.mint(USER, '1000000000000000');
    const url = new URL(env.arlocal.url);
    const arweave = new Arweave({ host: url.hostname, port: Number(url.port), protocol: 'http' });
    const tx = await arweave.createTransaction({ target: env.service.walletAddress, quantity: '5000', data: '' }, arweaveJwk);
    await arweave.transactions.sign(tx, arweaveJwk);
    expect((await arweave.transactions.post(tx)).status).to.equal(200);
    slow = true;
    const answer = await fetch(`${env.service.url}/account/balance/arweave`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx_id: tx.id }),
    });
    expect([answer.status, ((await answer.json()) as { confirmed: boolean }).confirmed]).to.deep.equal([200, false]);
    // the pass reads the pending claims from their read model: this one is there
    expect(await env.service.topUps.creditPending()).to.deep.equal({ credited: 0, pending: 1, expired: 0 });
    slow = false;
  });
});
