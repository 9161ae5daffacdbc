import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { createBundler, type Bundler } from '../../src/app/bundler/bundler.js';
import { createWalletFunds } from '../../src/app/bundler/funds.js';
import { createRefunder } from '../../src/app/accounts/refunder.js';
import { AccountRepository } from '../../src/app/accounts/accounts.js';
import { createRequeue } from '../../src/app/requeueItems.js';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { accountStream } from '../../src/domain/account/ids.js';
import { isAccountEvent, type AccountEvent } from '../../src/domain/account/events.js';
import { InsufficientBalance } from '../../src/domain/errors.js';
import { fromRecorded, toNewEvent } from '../../src/domain/events.js';
import { newEventId } from '../../src/domain/ids.js';
import { history } from '../../src/history/history.js';
import type { AccountStatement } from '../../src/queries/index.js';
import type { ArweaveGateway } from '../../src/ports/gateway.js';
import { GatewayRejected } from '../../src/ports/gatewayErrors.js';
import { nativeAddress } from '../../src/verify/index.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { startBundlerNode, statusesOf, uploadItems, type BundlerNode } from '../bundler/harness.js';

const RATE = 3n;
const FREE = 500;
const meta = { correlationId: 'refund-test' };

/** a gateway that refuses every bundle transaction (400): each bundle counts an attempt, so its items fail */
function refusingGateway(): ArweaveGateway {
  return {
    price: async (bytes) => BigInt(bytes) * 10n,
    anchor: async () => 'A'.repeat(43),
    currentHeight: async () => 1_000,
    walletBalance: async () => 10n ** 15n,
    postTransaction: async () => {
      throw new GatewayRejected('POST /tx refused: HTTP 400: Transaction verification failed.', 400, 'Transaction verification failed.', 'transaction');
    },
    postChunk: async () => {},
    transactionStatus: async () => ({ status: 'not_found' }),
  };
}

/**
 * Refunds of FAILED items (MAX_BUNDLE_ATTEMPTS=1, a gateway that refuses the bundle: its items fail at
 * the first drop). Items of 1,000 bytes cost 3 winc a byte; items of at most 500 bytes are free.
 */
describe('refunds of FAILED items', function () {
  this.timeout(60_000);
  let info: Awaited<ReturnType<typeof startGatewayInfo>>;
  let node: BundlerNode;
  let bundler: Bundler | undefined;

  beforeEach(async () => {
    info = await startGatewayInfo(1_000);
    node = await startBundlerNode({
      gatewayUrl: info.url,
      env: { MAX_BUNDLE_ATTEMPTS: '1', FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: String(RATE) },
    });
  });
  afterEach(async () => {
    await bundler?.stop();
    bundler = undefined;
    await node.stop();
    await rm(node.dataDir, { recursive: true, force: true });
    await info.close();
  });

  /** one bundler pass on the refusing gateway: every queued item FAILED */
  async function failQueued() {
    const gateway = refusingGateway();
    const funds = createWalletFunds({ gateway, address: 'W'.repeat(43), refreshMs: 60_000, warn: () => {}, now: Date.now });
    bundler = createBundler({ ...node.deps, gateway, funds });
    node.retryDue();
    await bundler.runOnce();
    await settle();
  }

  const settle = async () => node.service.projections.waitFor(await node.service.eventStore.headPosition(), 10_000);

  /** a paid item of 1,000 bytes, uploaded by a payer credited `credit` winc: the item, its payer, its charge */
  async function paidItem(credit: bigint): Promise<{ item: DataItem; payer: string; charge: bigint }> {
    const item = await itemOfSize(signers.ethereum(), 1_000);
    const payer = nativeAddress(3, item.rawOwner);
    await node.service.accounts.execute({ type: 'Credit', data: { address: payer, winc: credit, creditId: `c-${payer}`, now: Date.now() } }, meta);
    const res = await fetch(`${node.service.url}/tx`, { method: 'POST', body: new Uint8Array(item.getRaw()) });
    const receipt = (await res.json()) as { winc: string };
    expect(res.status).to.equal(200);
    return { item, payer, charge: BigInt(receipt.winc) };
  }

  const accountEvents = async (address: string): Promise<AccountEvent[]> => {
    const out: AccountEvent[] = [];
    for await (const recorded of node.service.eventStore.readStream(accountStream(address))) {
      const event = fromRecorded(recorded);
      if (event && isAccountEvent(event)) out.push(event);
    }
    return out;
  };
  const refundsOf = async (address: string) =>
    (await accountEvents(address)).filter((e) => e.type === 'ChargeRefunded').map((e) => ({ item: e.data.dataItemId, winc: e.data.winc }));
  const balanceOf = async (address: string) => {
    const res = await fetch(`${node.service.url}/account/balance/${address}`);
    return ((await res.json()) as { winc: string }).winc;
  };
  const refunder = (accounts = node.service.accounts) =>
    createRefunder({ items: node.service.items, readStore: node.service.readStore, accounts, intervalMs: 60_000, now: Date.now });

  async function auditFindings(): Promise<Finding[]> {
    const findings: Finding[] = [];
    const { eventStore, readStore, blobStore } = node.service;
    await runAudit({ eventStore, readStore, blobStore, now: Date.now }, (f) => findings.push(f));
    return findings;
  }

  it('gives a FAILED item its exact charge back once: balance, one event naming it, a history line, a clean audit', async () => {
    const { item, payer, charge } = await paidItem(1_000_000n);
    expect(charge).to.equal(3_000n);
    await failQueued();
    expect(await statusesOf(node.service, [item])).to.deep.equal([{ status: 'FAILED', info: 'failed' }]);
    expect(await balanceOf(payer)).to.equal('997000');

    expect(await refunder().runOnce()).to.deep.equal({ refunded: 1 });
    await settle();
    expect(await refunder().runOnce()).to.deep.equal({ refunded: 0 });
    expect(await refundsOf(payer)).to.deep.equal([{ item: item.id, winc: '3000' }]);
    expect(await balanceOf(payer)).to.equal('1000000');

    let text = '';
    for await (const piece of history({ eventStore: node.service.eventStore }, payer)) text += piece;
    expect(text).to.include(`+3000 winc refunded for item ${item.id}`);
    expect(await auditFindings()).to.deep.equal([]);

    const res = await fetch(`${node.service.url}/account/statement/${payer}`);
    const statement = (await res.json()) as AccountStatement;
    const failed = { status: 'FAILED', info: 'failed' };
    expect(statement.entries.map(({ timestamp: _, ...e }) => e)).to.deep.equal([
      { kind: 'credit', id: `c-${payer}`, winc: '1000000' },
      { kind: 'charge', id: item.id, winc: '3000', item: failed },
      { kind: 'refund', id: item.id, winc: '3000', item: failed },
    ]);
    expect(statement.balance.winc).to.equal('1000000');
  });

  it("shows the refund and the requeue's charge again on the item's timeline (the dashboard's item page)", async () => {
    const { item, payer } = await paidItem(1_000_000n);
    await failQueued();
    await refunder().runOnce();
    await requeue()({ id: item.id, by: 'ops', reason: 'gateway healed' }, meta);
    await settle();
    const page = (await (await fetch(`${node.service.url}/dashboard/api/tx/${item.id}`)).json()) as { timeline: { type: string; summary: string }[] };
    const lines = page.timeline.filter((e) => e.type === 'ChargeRefunded' || e.type === 'ItemRecharged' || e.type === 'DataItemRequeued');
    expect(lines.map((e) => [e.type, e.summary])).to.deep.equal([
      ['ChargeRefunded', `3000 winc refunded to ${payer} for failure 1: 1 bundles dropped`],
      ['ItemRecharged', `3000 winc charged again to ${payer} for its requeue by ops (failure 1 refunded)`],
      ['DataItemRequeued', 'requeued by ops: gateway healed; back in the bundle queue (it had failed: 1 bundles dropped)'],
    ]);
  });

  it('refunds once when two refunders (split roles, a restarted process with a stale read model) race', async () => {
    const { item, payer } = await paidItem(1_000_000n);
    await failQueued();
    // each its own repository, as separate processes; the read model still names the item to the second
    const results = await Promise.all(
      [refunder(new AccountRepository(node.service.eventStore)), refunder(new AccountRepository(node.service.eventStore))].map((r) => r.runOnce()),
    );
    expect(results.map((r) => r.refunded).sort()).to.deep.equal([0, 1]);
    await node.stop();
    node = await startBundlerNode({
      gatewayUrl: info.url,
      dataDir: node.dataDir,
      env: { MAX_BUNDLE_ATTEMPTS: '1', FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: String(RATE) },
    });
    expect(await refunder().runOnce()).to.deep.equal({ refunded: 0 });
    expect(await refundsOf(payer)).to.deep.equal([{ item: item.id, winc: '3000' }]);
    expect(await balanceOf(payer)).to.equal('1000000');
  });

  it('audits refunds appended by hand: a second refund of one failure, a refund of an item not FAILED', async () => {
    const { item, payer } = await paidItem(1_000_000n);
    await failQueued();
    await refunder().runOnce();
    const { item: pending, payer: otherPayer } = await paidItem(1_000_000n);
    const reservationOf = async (id: string) => {
      const state = await node.service.items.read(id);
      return state.status === 'accepted' ? state.reservationId! : '';
    };
    const byHand = async (id: string, address: string) =>
      toNewEvent(
        {
          type: 'ChargeRefunded',
          data: { address, dataItemId: id, reservationId: await reservationOf(id), winc: '3000', failure: 1, reason: 'by hand', timestamp: Date.now() },
        },
        newEventId(),
        meta,
      );
    const { eventStore } = node.service;
    await eventStore.append(accountStream(payer), [await byHand(item.id, payer)], 'any');
    await eventStore.append(accountStream(otherPayer), [await byHand(pending.id, otherPayer)], 'any');
    await settle();
    expect((await auditFindings()).map(({ kind, id, detail }) => ({ kind, id, detail }))).to.deep.equal([
      { kind: 'refund-twice', id: item.id, detail: `failure 1 refunded again to ${payer} (3000 winc)` },
      {
        kind: 'refund-mismatch',
        id: pending.id,
        detail: `refunded 3000 winc to ${otherPayer} while the item was not FAILED (permanent, pending or never failed)`,
      },
    ]);
  });

  it('gives a free item nothing', async () => {
    const [free] = await uploadItems(node.service, [400]);
    await failQueued();
    expect(await statusesOf(node.service, [free!])).to.deep.equal([{ status: 'FAILED', info: 'failed' }]);
    expect(await refunder().runOnce()).to.deep.equal({ refunded: 0 });
    expect(await accountEvents(nativeAddress(3, free!.rawOwner))).to.deep.equal([]);
  });

  const requeue = () => createRequeue({ items: node.service.items, accounts: node.service.accounts, now: Date.now });

  it('charges a refunded item again when it is requeued; failing again, it is refunded again', async () => {
    const { item, payer } = await paidItem(1_000_000n);
    await failQueued();
    await refunder().runOnce();
    const outcome = await requeue()({ id: item.id, by: 'ops', reason: 'gateway healed' }, meta);
    expect(outcome.requeued).to.equal(true);
    await settle();
    expect(await balanceOf(payer)).to.equal('997000');
    expect((await accountEvents(payer)).map((e) => e.type)).to.deep.equal([
      'AccountCredited',
      'BalanceReserved',
      'ReservationSettled',
      'ChargeRefunded',
      'ItemRecharged',
    ]);
    expect(await refunder().runOnce()).to.deep.equal({ refunded: 0 });
    await failQueued();
    expect(await refunder().runOnce()).to.deep.equal({ refunded: 1 });
    expect(await balanceOf(payer)).to.equal('1000000');
    expect(await auditFindings()).to.deep.equal([]);
  });

  it('requeues an item not refunded yet with its refund and charge together: the refunder then gives nothing', async () => {
    const { item, payer } = await paidItem(1_000_000n);
    await failQueued();
    await requeue()({ id: item.id, by: 'ops', reason: 'at once' }, meta);
    await settle();
    expect(await refunder().runOnce()).to.deep.equal({ refunded: 0 });
    expect((await accountEvents(payer)).slice(3).map((e) => e.type)).to.deep.equal(['ChargeRefunded', 'ItemRecharged']);
    expect(await balanceOf(payer)).to.equal('997000');
  });

  it('refuses to requeue a refunded item whose payer cannot pay again: it stays FAILED, its refund stands', async () => {
    const { item, payer } = await paidItem(3_000n);
    await failQueued();
    await refunder().runOnce();
    await settle();
    // the refunded credits held by another upload's reservation
    await node.service.accounts.execute(
      { type: 'Reserve', data: { address: payer, reservationId: 'other', winc: 3_000n, dataItemId: 'x'.repeat(43), now: Date.now() } },
      meta,
    );
    let refused: unknown;
    await requeue()({ id: item.id, by: 'ops', reason: 'try' }, meta).catch((e: unknown) => (refused = e));
    expect(refused).to.be.instanceOf(InsufficientBalance);
    await settle();
    expect(await statusesOf(node.service, [item])).to.deep.equal([{ status: 'FAILED', info: 'failed' }]);
    expect(await refundsOf(payer)).to.deep.equal([{ item: item.id, winc: '3000' }]);
  });
});
