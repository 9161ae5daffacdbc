import type { StoredEvent } from '../domain/events.js';

/**
 * What the audit reports. Each kind names one broken invariant of DESIGN.md section 6; `id` is what
 * an auditor passes to `npm run history` next (an item id, an account address, a plan id).
 */
export type FindingKind =
  /** an event of a known type whose data its schema refuses */
  | 'event-invalid'
  | 'blob-missing'
  | 'blob-unreadable'
  | 'blob-size'
  | 'blob-digest'
  | 'item-signature'
  | 'item-id'
  | 'item-header'
  | 'receipt-signature'
  | 'receipt-fields'
  | 'receipt-key'
  | 'balance-mismatch'
  | 'balance-missing'
  | 'balance-negative'
  | 'approval-negative'
  | 'bundle-layout'
  | 'bundle-item-size'
  | 'bundle-item-unknown'
  | 'item-in-two-bundles'
  /** recorded damaged by the bundler (its stored bytes are not the accepted ones) and not repaired */
  | 'item-damaged'
  | 'damaged-item-planned'
  /** planned while FAILED, with no requeue recorded since */
  | 'failed-item-planned'
  /** signed into a bundle while held (quarantined), the hold not recorded as too late for it */
  | 'held-item-signed'
  /** a bundle event under an older fencing token than one before it: a bundler appended after losing its lease */
  | 'bundle-fence'
  | 'settlement-missing'
  | 'settlement-mismatch'
  | 'settlement-orphan'
  /** a blob no event speaks of: an item never accepted, an upload at an end or unknown */
  | 'blob-orphan'
  /** a top-up credit that its chain does not show as recorded (unknown, other sender, target or amount, failed, not in a block) */
  | 'top-up-mismatch'
  /** one transfer (its canonical id, whatever the spelling) credited more than once, or claimed again while claimed */
  | 'top-up-twice'
  /** a refund that is not one FAILED item's charge (other account, amount, reservation; the item not FAILED then; never charged) */
  | 'refund-mismatch'
  /** one failure of an item refunded more than once */
  | 'refund-twice'
  /** an item made permanent while its charge stood refunded */
  | 'refund-permanent'
  /** an x402 payment credited more than once, or started again once credited */
  | 'x402-twice'
  /** an x402 credit that is not its settlement's (none started, failed, another payer or amount), or the chain disagrees */
  | 'x402-mismatch'
  /** an x402 settlement started longer ago than the grace and never ended: settled on chain and not credited, or expired unused */
  | 'x402-unresolved';

export interface Finding {
  kind: FindingKind;
  id: string;
  /** what differs, in one line */
  detail: string;
}

/** What was checked, counted, so a clean report says how much it vouches for. */
export type Counted =
  | 'events'
  | 'itemBlobs'
  /** of them, blobs gone because the item's bytes were retired after permanence (ItemBytesRetired) */
  | 'retiredItemBlobs'
  | 'receipts'
  | 'accounts'
  | 'accountsNotProjectedYet'
  | 'bundlePlans'
  | 'plannedItems'
  | 'paidItems'
  | 'awaitingSettlement'
  /** blobs under items/ and uploads/, and those of them changed within the grace period (not judged) */
  | 'blobsListed'
  | 'blobsNotJudged'
  /** top-up credits checked against their chain, and those whose chain is not configured or could not be read */
  | 'topUps'
  | 'topUpsNotChecked'
  /** refunds of FAILED items' charges checked */
  | 'refunds'
  /** x402 payments checked against their chain, those whose chain is not configured or could not be read, those still in flight */
  | 'x402Payments'
  | 'x402NotChecked'
  | 'x402InFlight';

export interface AuditSink {
  finding(finding: Finding): void;
  count(what: Counted, n?: number): void;
}

/** every event of `$all` the service knows, parsed, in position order */
export type AuditEvent = StoredEvent;

/** One invariant: reads the events once, in order, and reports to the sink. */
export type Check = (events: AsyncIterable<AuditEvent>, sink: AuditSink) => Promise<void>;

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
