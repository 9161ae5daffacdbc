import { txStatusProjection, type TxStatusDocument } from '../../projections/txStatus.js';
import { uploadsProjection, type UploadDocument } from '../../projections/uploads.js';
import type { DomainEvent } from '../domain/events.js';
import type { LiveEvent } from './liveFeed.js';
import { openStatusWatch, type StatusSink, type WatchDeps, type WatchOpening, type WatchSpec } from './statusWatch.js';

/**
 * The two status streams (CONTRACT.md section 6): an item's, following the tx-status read model and
 * its bundle's steps, and a multi-part upload's, following the uploads read model.
 */

type Bundled = Extract<DomainEvent, { type: 'BundleAwaitingFunds' | 'BundlePosted' | 'BundleSeeded' | 'BundleConfirmed' }>;
const isPlanStep = (event: DomainEvent): event is Bundled =>
  event.type === 'BundleAwaitingFunds' || event.type === 'BundlePosted' || event.type === 'BundleSeeded' || event.type === 'BundleConfirmed';

/** the change's name, for each event that may change what an item's status shows */
function itemChangeName(event: DomainEvent): string | undefined {
  switch (event.type) {
    case 'DataItemAccepted':
      return 'accepted';
    case 'BundlePlanned':
      return 'bundled';
    case 'BundleAwaitingFunds':
      return 'awaiting-funds';
    case 'BundlePrepared':
      return 'signed';
    case 'BundlePosted':
      return 'posted';
    case 'BundleSeeded':
      return 'seeded';
    case 'BundleConfirmed':
      return 'confirmed';
    case 'BundlePermanent':
      return 'permanent';
    case 'BundleDropped':
      return 'dropped';
    case 'DataItemFailed':
      return 'failed';
    case 'DataItemDamaged':
      return 'damaged';
    case 'DataItemRepaired':
      return 'repaired';
    case 'DataItemRequeued':
      return 'requeued';
    case 'DataItemQuarantined':
      return 'quarantined';
    case 'DataItemReleased':
      return 'released';
    default:
      return undefined;
  }
}

/** what a client may want of the change beyond the status: the bundle transaction, its block, why */
function factsOf(event: DomainEvent): Record<string, unknown> {
  const data = event.data as Partial<Record<'txId' | 'blockHeight' | 'confirmations' | 'reason', unknown>>;
  const facts: Record<string, unknown> = {};
  if (typeof data.txId === 'string') facts.bundleId = data.txId;
  if (typeof data.blockHeight === 'number') facts.blockHeight = data.blockHeight;
  if (typeof data.confirmations === 'number') facts.confirmations = data.confirmations;
  if (typeof data.reason === 'string') facts.reason = data.reason;
  return facts;
}

const sameDoc = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const itemStatusStream: WatchSpec<TxStatusDocument> = {
  projection: txStatusProjection,
  // a plan's steps name no item: before the document is read every one is kept, then only its plan's
  concerns: (e, id, doc) => e.itemIds.has(id) || (isPlanStep(e.event) && (doc === undefined || e.event.data.planId === doc.planId)),
  changeOf(e: LiveEvent, before, after) {
    const event = itemChangeName(e.event);
    if (event === undefined || after === undefined) return undefined;
    // a step of the item's bundle shows in no field of the status, but is a step all the same
    const step = isPlanStep(e.event) && before?.planId !== undefined && e.event.data.planId === before.planId;
    if (!step && before !== undefined && sameDoc(before, after)) return undefined;
    return { event, facts: factsOf(e.event) };
  },
  stateOf(doc) {
    if (doc.info === 'new') return 'accepted';
    if (doc.info === 'pending') return doc.bundleId !== undefined ? 'signed' : 'bundled';
    return doc.info;
  },
  terminal: (doc) => doc.status === 'FINALIZED' || doc.status === 'FAILED',
};

const uploadTerminal: ReadonlySet<string> = new Set(['FINALIZED', 'INVALID', 'UNDERFUNDED', 'EXPIRED']);

export const uploadStatusStream: WatchSpec<UploadDocument> = {
  projection: uploadsProjection,
  concerns: (e, id) => e.event.type.startsWith('Upload') && (e.event.data as { uploadId?: unknown }).uploadId === id,
  changeOf(_e, before, after) {
    if (after === undefined || (before !== undefined && before.status === after.status)) return undefined;
    return { event: after.status.toLowerCase() };
  },
  stateOf: (doc) => doc.status.toLowerCase(),
  terminal: (doc) => uploadTerminal.has(doc.status),
};

/** What the status-stream routes open: an item's or an upload's stream, from the one shared feed. */
export interface StatusStreams {
  item(id: string, sink: StatusSink<TxStatusDocument>, since?: bigint): Promise<WatchOpening<TxStatusDocument>>;
  upload(id: string, sink: StatusSink<UploadDocument>, since?: bigint): Promise<WatchOpening<UploadDocument>>;
  /** ends every stream (their clients resume elsewhere) and closes the feed's subscription */
  stop(): Promise<void>;
}

export const createStatusStreams = (deps: WatchDeps): StatusStreams => ({
  item: (id, sink, since) => openStatusWatch(deps, itemStatusStream, id, sink, since),
  upload: (id, sink, since) => openStatusWatch(deps, uploadStatusStream, id, sink, since),
  stop: () => deps.feed.stop(),
});
