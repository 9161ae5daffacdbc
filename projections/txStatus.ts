import { match } from 'ts-pattern';
import type { DomainEvent } from '../src/domain/events.js';
import type { HandledEvent, ProjectionDefinition } from './definition.js';
import { itemIdsOf } from './itemIds.js';

/** Answers `GET /tx/:id/status` and, with the root bundle known, `GET /tx/:id/offsets` (CONTRACT.md section 6). */
export interface TxStatusDocument {
  status: 'CONFIRMED' | 'FINALIZED' | 'FAILED';
  /** `damaged`: its stored bytes no longer match its acceptance; it is bundled again once the same item is uploaded again */
  info: 'new' | 'pending' | 'permanent' | 'failed' | 'damaged';
  winc: string;
  rawContentLength: number;
  payloadContentType: string;
  payloadDataStart: number;
  payloadContentLength: number;
  /** acceptance time, for the offsets retention */
  timestamp: number;
  /** the live bundle plan holding the item */
  planId?: string;
  bundleId?: string;
  startOffsetInRootBundle?: number;
  /** its stored bytes were found damaged and not repaired since: FAILED/damaged whatever its bundle does */
  damaged?: true;
  /** held by the operator (quarantined) and not released: in no bundle planned meanwhile, its bytes answer 451 */
  quarantined?: true;
}

const handles = [
  'DataItemAccepted',
  'DataItemFailed',
  'DataItemDamaged',
  'DataItemRepaired',
  'DataItemRequeued',
  'DataItemQuarantined',
  'DataItemReleased',
  'BundlePlanned',
  'BundlePrepared',
  'BundlePermanent',
  'BundleDropped',
] as const;
type TxStatusEvent = HandledEvent<typeof handles>;

/**
 * Where the item stands given its bundle: waiting, or in a live plan. A damaged item is FAILED/damaged
 * meanwhile: the client is told that this item will not be made permanent unless it is sent again
 * (the receipt's promise is broken, and waiting on CONFIRMED would never end).
 */
const placed = (doc: TxStatusDocument): TxStatusDocument =>
  doc.damaged ? { ...doc, status: 'FAILED', info: 'damaged' } : { ...doc, status: 'CONFIRMED', info: doc.planId !== undefined ? 'pending' : 'new' };

/** back to the queue: nothing of the dropped bundle stays */
const unbundled = ({ planId: _p, bundleId: _b, startOffsetInRootBundle: _s, ...rest }: TxStatusDocument): TxStatusDocument => placed(rest);

export const txStatusProjection: ProjectionDefinition<TxStatusDocument, TxStatusEvent> = {
  name: 'tx-status',
  version: 1,
  handles,
  documentIds: itemIdsOf,

  reduce: (doc, event, { id }) => {
    if (event.type === 'DataItemAccepted') {
      const { data } = event;
      // a second acceptance cannot happen (the stream is created with "no stream"); keep the first
      return (
        doc ?? {
          status: 'CONFIRMED',
          info: 'new',
          winc: data.winc,
          rawContentLength: data.rawContentLength,
          payloadContentType: data.payloadContentType,
          payloadDataStart: data.payloadDataStart,
          payloadContentLength: data.rawContentLength - data.payloadDataStart,
          timestamp: data.timestamp,
        }
      );
    }
    if (!doc) return doc;
    return (
      match(event)
        .returnType<TxStatusDocument>()
        .with({ type: 'DataItemFailed' }, () => ({ ...unbundled(doc), status: 'FAILED', info: 'failed' }))
        // its plan stays until dropped (the bundler drops it right after), so a plan's events still find it
        .with({ type: 'DataItemDamaged' }, () => placed({ ...doc, damaged: true }))
        .with({ type: 'DataItemRepaired' }, () => {
          const { damaged: _, ...repaired } = doc;
          return placed(repaired);
        })
        // back in the queue: accepted, waiting for a bundle (the failure left it in none)
        .with({ type: 'DataItemRequeued' }, () => unbundled(doc))
        // a flag beside the status: the item's place (waiting, in a bundle, FAILED) is what it was
        .with({ type: 'DataItemQuarantined' }, () => ({ ...doc, quarantined: true as const }))
        .with({ type: 'DataItemReleased' }, () => {
          const { quarantined: _, ...released } = doc;
          return released;
        })
        .with({ type: 'BundlePlanned' }, ({ data }) =>
          placed({
            ...unbundled(doc),
            planId: data.planId,
            startOffsetInRootBundle: data.items.find((i) => i.id === id)!.offset,
          }),
        )
        // events of a plan the item has left since (dropped, then planned again) change nothing
        .with({ type: 'BundlePrepared' }, ({ data }) => (doc.planId === data.planId ? { ...doc, bundleId: data.txId } : doc))
        .with({ type: 'BundlePermanent' }, ({ data }) =>
          doc.planId === data.planId ? { ...doc, status: 'FINALIZED', info: 'permanent', bundleId: data.txId } : doc,
        )
        .with({ type: 'BundleDropped' }, ({ data }) => (doc.planId === data.planId ? unbundled(doc) : doc))
        .exhaustive()
    );
  },
};
