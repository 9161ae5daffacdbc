import type { BlobStore } from '../ports/blobStore.js';
import type { EventStore } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import { checkBalances } from './checks/balances.js';
import { checkBundleFences } from './checks/bundleFences.js';
import { checkBundleLayout } from './checks/bundleLayout.js';
import { checkDamagedItems } from './checks/damagedItems.js';
import { checkFailedItems } from './checks/failedItems.js';
import { checkHeldItems } from './checks/heldItems.js';
import { checkItemBytes } from './checks/itemBytes.js';
import { checkLiveBundles } from './checks/liveBundles.js';
import { checkOrphanBlobs } from './checks/orphanBlobs.js';
import { checkReceipts } from './checks/receipts.js';
import { checkRefunds } from './checks/refunds.js';
import { checkSettlements } from './checks/settlements.js';
import { checkTopUps } from './checks/topUps.js';
import { checkX402Payments, type X402ChainReader } from './checks/x402Payments.js';
import type { TransferSource } from '../ports/transfers.js';
import { fanOut } from './fanOut.js';
import { parseRecorded } from './parse.js';
import type { AuditEvent, AuditSink, Check, Counted, Finding } from './types.js';

export interface AuditStores {
  eventStore: Pick<EventStore, 'readAll' | 'readStream' | 'headPosition'>;
  readStore: Pick<ReadStore, 'getMany' | 'scan' | 'getCheckpoint'>;
  blobStore: Pick<BlobStore, 'read' | 'list'>;
  /** blobs changed more recently are not judged by the orphan check (default one hour): they may be in flight */
  blobGraceMs?: number;
  now: () => number;
  /** the service wallet's modulus; without it the receipts' signer is not compared with it */
  servicePublicModulus?: string | undefined;
  /** blobs checked at once */
  concurrency?: number;
  /** the chains top-up credits are checked against, by token (absent: none is checked) */
  transfers?: ReadonlyMap<string, TransferSource>;
  /** the x402 networks' USDC contracts, by network, and how long a settlement may be in flight (absent: none read, a settlement never ended judged after an hour) */
  x402?: { chains: ReadonlyMap<string, X402ChainReader>; graceMs: number };
}

export interface AuditSummary {
  /** the audit read `$all` up to this position (the head when it started) */
  head: bigint;
  checked: Record<Counted, number>;
  findings: number;
  receiptKeyChecked: boolean;
  blobGraceMs: number;
}

/** an hour: far longer than the service takes between writing an item's bytes and recording them */
export const DEFAULT_BLOB_GRACE_MS = 60 * 60 * 1000;

/** every check of DESIGN.md section 6, each reading the same single pass over `$all` */
export const checksOf = (stores: AuditStores): Check[] => [
  (events, sink) => checkItemBytes(events, stores, sink),
  (events, sink) => checkReceipts(events, stores, sink),
  (events, sink) => checkBalances(events, stores, sink),
  (events, sink) => checkBundleLayout(events, stores, sink),
  checkLiveBundles,
  checkSettlements,
  checkDamagedItems,
  checkFailedItems,
  checkHeldItems,
  checkBundleFences,
  (events, sink) => checkRefunds(events, stores, sink),
  (events, sink) => checkTopUps(events, { transfers: stores.transfers ?? new Map() }, sink),
  (events, sink) =>
    checkX402Payments(events, { chains: stores.x402?.chains ?? new Map(), graceMs: stores.x402?.graceMs ?? DEFAULT_BLOB_GRACE_MS, now: stores.now() }, sink),
];

/**
 * Reads `$all` once, in order, up to the head at the start (so a running service's later writes do
 * not move the goal), and hands each event to every check; then walks the blob store for blobs no
 * event speaks of. Findings go to `onFinding` as they are found; nothing grows with the number of
 * events or blobs but what each check must remember.
 */
export async function runAudit(stores: AuditStores, onFinding: (finding: Finding) => void, checks = checksOf(stores)): Promise<AuditSummary> {
  const checked = Object.fromEntries(COUNTED.map((c) => [c, 0])) as Record<Counted, number>;
  let findings = 0;
  const sink: AuditSink = {
    finding(finding) {
      findings += 1;
      onFinding(finding);
    },
    count(what, n = 1) {
      checked[what] += n;
    },
  };
  const head = await stores.eventStore.headPosition();
  await fanOut(
    eventsUpTo(stores.eventStore, head, sink),
    checks.map((check) => (events: AsyncIterable<AuditEvent>) => check(events, sink)),
  );
  const blobGraceMs = stores.blobGraceMs ?? DEFAULT_BLOB_GRACE_MS;
  await checkOrphanBlobs({ ...stores, graceMs: blobGraceMs, now: stores.now() }, sink);
  return { head, checked, findings, receiptKeyChecked: stores.servicePublicModulus !== undefined, blobGraceMs };
}

const COUNTED: readonly Counted[] = [
  'events',
  'itemBlobs',
  'retiredItemBlobs',
  'receipts',
  'accounts',
  'accountsNotProjectedYet',
  'bundlePlans',
  'plannedItems',
  'paidItems',
  'awaitingSettlement',
  'blobsListed',
  'blobsNotJudged',
  'topUps',
  'topUpsNotChecked',
  'refunds',
  'x402Payments',
  'x402NotChecked',
  'x402InFlight',
];

async function* eventsUpTo(eventStore: AuditStores['eventStore'], head: bigint, sink: AuditSink): AsyncGenerator<AuditEvent> {
  if (head === 0n) return;
  for await (const recorded of eventStore.readAll()) {
    if (recorded.position > head) return;
    sink.count('events');
    const parsed = parseRecorded(recorded);
    if (parsed.event) yield { event: parsed.event, recorded };
    else if (parsed.invalid !== undefined) {
      sink.finding({ kind: 'event-invalid', id: `${recorded.streamName}@${recorded.revision}`, detail: `${recorded.type}: ${parsed.invalid}` });
    }
  }
}
