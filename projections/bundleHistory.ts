import { match } from 'ts-pattern';
import type { BundleEvent } from '../src/domain/bundle/events.js';
import type { BundleStatus } from '../src/domain/bundle/state.js';
import type { ProjectionDefinition } from './definition.js';
import { countOf, entryOf, type HistoryEntry } from './itemHistory.js';

/**
 * A bundle plan's state and steps, kept after it ends (unlike live-bundles): the item page shows
 * the state of an item's bundle and the steps whose events name no item (posted, seeded,
 * confirmed). A few entries per bundle, whatever its number of items.
 */
export interface BundleHistoryDocument {
  status: BundleStatus;
  plannedAt: number;
  itemCount: number;
  totalSize: number;
  txId?: string;
  blockHeight?: number;
  confirmations?: number;
  entries: HistoryEntry[];
}

const summaryOf = (event: BundleEvent): string =>
  match(event)
    .returnType<string>()
    .with({ type: 'BundlePlanned' }, ({ data: d }) => `bundle ${d.planId} planned: ${countOf(d.items.length, 'item')}, ${d.totalSize} bytes`)
    .with(
      { type: 'BundleAwaitingFunds' },
      ({ data: d }) => `bundle ${d.planId} waits for funds: reward ${d.reward} winston, wallet ${d.address} holds ${d.balance}`,
    )
    .with({ type: 'BundlePrepared' }, ({ data: d }) => `bundle ${d.planId} signed as transaction ${d.txId} (reward ${d.reward} winston)`)
    .with({ type: 'BundlePosted' }, ({ data: d }) => `bundle transaction ${d.txId} posted to the gateway`)
    .with({ type: 'BundleSeeded' }, ({ data: d }) => `bundle transaction ${d.txId}: every chunk seeded`)
    .with({ type: 'BundleConfirmed' }, ({ data: d }) => `bundle transaction ${d.txId} mined in block ${d.blockHeight}, ${d.confirmations} confirmations`)
    .with({ type: 'BundlePermanent' }, ({ data: d }) => `bundle transaction ${d.txId} permanent in block ${d.blockHeight}, ${d.confirmations} confirmations`)
    .with(
      { type: 'BundleDropped' },
      ({ data: d }) => `bundle ${d.planId} dropped: ${d.reason}${d.countsAsAttempt === false ? ' (not counted as an attempt)' : ''}`,
    )
    .exhaustive();

const statusAfter = (event: BundleEvent): BundleStatus =>
  match(event.type)
    .returnType<BundleStatus>()
    .with('BundlePlanned', () => 'planned')
    // still planned: it waits for the wallet, then is prepared
    .with('BundleAwaitingFunds', () => 'planned')
    .with('BundlePrepared', () => 'prepared')
    .with('BundlePosted', () => 'posted')
    .with('BundleSeeded', () => 'seeded')
    .with('BundleConfirmed', () => 'confirmed')
    .with('BundlePermanent', () => 'permanent')
    .with('BundleDropped', () => 'dropped')
    .exhaustive();

export const bundleHistoryProjection: ProjectionDefinition<BundleHistoryDocument, BundleEvent> = {
  name: 'bundle-history',
  version: 1,
  handles: ['BundlePlanned', 'BundleAwaitingFunds', 'BundlePrepared', 'BundlePosted', 'BundleSeeded', 'BundleConfirmed', 'BundlePermanent', 'BundleDropped'],
  documentIds: (event) => [event.data.planId],
  reduce: (doc, event, { recorded }) => {
    const entry = entryOf(event.type, recorded, event.data.timestamp, summaryOf(event));
    if (event.type === 'BundlePlanned') {
      const { timestamp, items, totalSize } = event.data;
      return { status: 'planned', plannedAt: timestamp, itemCount: items.length, totalSize, entries: [entry] };
    }
    // a plan's stream starts with BundlePlanned: anything else first is not a plan of this service
    if (!doc) return doc;
    const d = event.data;
    return {
      ...doc,
      status: statusAfter(event),
      ...('txId' in d && d.txId !== undefined ? { txId: d.txId } : {}),
      ...('blockHeight' in d ? { blockHeight: d.blockHeight, confirmations: d.confirmations } : {}),
      entries: [...doc.entries, entry],
    };
  },
};
