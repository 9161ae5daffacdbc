import { match } from 'ts-pattern';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

/**
 * The read models of retention (RETAIN_PERMANENT_BYTES_MS, src/app/retention): which items' bytes
 * may be given up once their time is over, which were, and how many bytes that gave back.
 */

/** An item whose bundle is permanent and whose local bytes are still kept. */
export interface RetentionDue {
  planId: string;
  bundleId: string;
  /** the BundlePermanent's time: the retention time counts from it */
  permanentAt: number;
}

const dueHandles = ['BundlePermanent', 'ItemBytesRetired'] as const;

/** the index key of every document due, sorted by permanence then id: a pass reads the oldest first and stops at the first too young */
export const DUE_KEY = 'due';
/** digits of a time in ms in a sort key (compared as strings) */
const TIME_DIGITS = 15;

export const retentionDueProjection: ProjectionDefinition<RetentionDue, HandledEvent<typeof dueHandles>> = {
  name: 'retention-due',
  version: 1,
  handles: dueHandles,
  documentIds: (event) => (event.type === 'BundlePermanent' ? event.data.itemIds : [event.data.id]),
  reduce: (doc, event) =>
    match(event)
      .returnType<RetentionDue | undefined>()
      // a bundle is permanent once (its decider): the first one stays
      .with({ type: 'BundlePermanent' }, ({ data }) => doc ?? { planId: data.planId, bundleId: data.txId, permanentAt: data.timestamp })
      .with({ type: 'ItemBytesRetired' }, () => undefined)
      .exhaustive(),
  indexOf: (doc, id) => ({ keys: [DUE_KEY], sort: `${String(Math.max(0, doc.permanentAt)).padStart(TIME_DIGITS, '0')}:${id}` }),
};

/** Where a retired item's bytes are read from now, and what they must be. */
export interface RetiredBytes {
  bundleId: string;
  startOffsetInRootBundle: number;
  rawContentLength: number;
  sha256: string;
  retiredAt: number;
}

const retiredHandles = ['ItemBytesRetired'] as const;

export const retiredBytesProjection: ProjectionDefinition<RetiredBytes, HandledEvent<typeof retiredHandles>> = {
  name: 'retired-bytes',
  version: 1,
  handles: retiredHandles,
  documentIds: (event) => [event.data.id],
  reduce: (doc, { data }) =>
    doc ?? {
      bundleId: data.bundleId,
      startOffsetInRootBundle: data.startOffsetInRootBundle,
      rawContentLength: data.rawContentLength,
      sha256: data.sha256,
      retiredAt: data.timestamp,
    },
};

/** the one document of the retention-stats read model */
export const RETENTION_STATS_ID = 'all';

/** Totals for `/metrics` and the status page; times from the events, so a rebuild gives the same. */
export interface RetentionStats {
  retiredItems: number;
  retiredBytes: number;
  lastRetiredAt?: number;
}

export const retentionStatsProjection: ProjectionDefinition<RetentionStats, HandledEvent<typeof retiredHandles>> = {
  name: 'retention-stats',
  version: 1,
  handles: retiredHandles,
  documentIds: () => [RETENTION_STATS_ID],
  reduce: (doc, { data }) => ({
    retiredItems: (doc?.retiredItems ?? 0) + 1,
    retiredBytes: (doc?.retiredBytes ?? 0) + data.rawContentLength,
    lastRetiredAt: data.timestamp,
  }),
};
