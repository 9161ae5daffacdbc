import { match } from 'ts-pattern';
import type { DomainEvent } from '../src/domain/events.js';
import type { ProjectionDefinition } from './definition.js';

/** Answers `GET /tx/:id/status` and, with the root bundle known, `GET /tx/:id/offsets` (CONTRACT.md section 6). */
export interface TxStatusDocument {
  status: 'CONFIRMED' | 'FINALIZED' | 'FAILED';
  info: 'new' | 'pending' | 'permanent' | 'failed';
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
}

type TxStatusEvent = Extract<
  DomainEvent,
  { type: 'DataItemAccepted' | 'DataItemFailed' | 'BundlePlanned' | 'BundlePrepared' | 'BundlePermanent' | 'BundleDropped' }
>;

/** back to the queue: nothing of the dropped bundle stays */
const unbundled = ({ planId: _p, bundleId: _b, startOffsetInRootBundle: _s, ...rest }: TxStatusDocument): TxStatusDocument => ({
  ...rest,
  status: 'CONFIRMED',
  info: 'new',
});

export const txStatusProjection: ProjectionDefinition<TxStatusDocument, TxStatusEvent> = {
  name: 'tx-status',
  version: 1,
  handles: ['DataItemAccepted', 'DataItemFailed', 'BundlePlanned', 'BundlePrepared', 'BundlePermanent', 'BundleDropped'],
  documentIds: (event) =>
    match(event)
      .returnType<readonly string[]>()
      .with({ type: 'DataItemAccepted' }, { type: 'DataItemFailed' }, (e) => [e.data.id])
      .with({ type: 'BundlePlanned' }, (e) => e.data.items.map((i) => i.id))
      .with({ type: 'BundlePrepared' }, { type: 'BundlePermanent' }, { type: 'BundleDropped' }, (e) => e.data.itemIds)
      .exhaustive(),
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
    return match(event)
      .returnType<TxStatusDocument>()
      .with({ type: 'DataItemFailed' }, () => ({ ...unbundled(doc), status: 'FAILED', info: 'failed' }))
      .with({ type: 'BundlePlanned' }, ({ data }) => ({
        ...unbundled(doc),
        info: 'pending',
        planId: data.planId,
        startOffsetInRootBundle: data.items.find((i) => i.id === id)!.offset,
      }))
      // events of a plan the item has left since (dropped, then planned again) change nothing
      .with({ type: 'BundlePrepared' }, ({ data }) => (doc.planId === data.planId ? { ...doc, bundleId: data.txId } : doc))
      .with({ type: 'BundlePermanent' }, ({ data }) =>
        doc.planId === data.planId ? { ...doc, status: 'FINALIZED', info: 'permanent', bundleId: data.txId } : doc,
      )
      .with({ type: 'BundleDropped' }, ({ data }) => (doc.planId === data.planId ? unbundled(doc) : doc))
      .exhaustive();
  },
};
