import type { EventStore } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import type { DataItemId } from '../domain/ids.js';
import type { BundleStatus } from '../domain/bundle/state.js';
import type { ServiceInfo, TxOffsets } from './types.js';
import type { FundsSnapshot } from '../app/bundler/funds.js';
import { projectorLag } from '../../projections/lag.js';
import type { BlockHeightHealth } from '../ports/gateway.js';
import { dashboardBlockHeight, type DashboardBlockHeight } from './blockHeight.js';
import { storageFigures, type StorageFigures } from './storage.js';
import {
  allProjections,
  bundleHistoryProjection,
  collectionOf,
  itemHistoryProjection,
  liveBundlesByState,
  nestedOffsetsProjection,
  txStatusProjection,
  uploadHistoryProjection,
  uploadStatsProjection,
  UPLOAD_STATS_ID,
  type AnyProjection,
  waitingForBundle,
  type RecentFailure,
  type BundleHistoryDocument,
  type HistoryEntry,
  type ItemHistoryDocument,
  type NestedOffsetsDocument,
  type TxStatusDocument,
  type UploadHistoryDocument,
  type UploadStatsDocument,
} from '../../projections/index.js';
import { emptyUploadStats, MINUTE_MS, RETAINED_MINUTES } from '../../projections/uploadStats.js';
import { heldItemsNow } from '../../projections/quarantineStats.js';

/** `GET /dashboard/api/summary`: what the status page shows, every figure from a read model. */
export interface DashboardSummary {
  generatedAt: string;
  info: ServiceInfo;
  uploads: {
    /** the last RETAINED_MINUTES minutes, oldest first, the current minute last (zeros included) */
    perMinute: { minute: string; items: number; bytes: number }[];
    lastHour: { items: number; bytes: number };
    total: { items: number; bytes: number };
    failedItems: number;
    /** items whose stored bytes no longer match their acceptance, not repaired yet */
    damagedItems: number;
    /** uploaded items held by the operator (quarantine) and not released, from the quarantine-stats read model */
    heldItems: number;
  };
  bundles: Record<BundleStatus, number>;
  /** items accepted (or requeued) and in no bundle yet, from the bundle queue */
  waiting: WaitingSummary;
  /** the last items FAILED (out of bundle attempts, or damaged), newest first; requeued or repaired ones leave */
  failures: { id: string; at: string; reason: string }[];
  /** positions are decimal strings (bigints in the store) */
  projector: { head: string; behind: string; byProjection: Record<string, string> };
  /** the service wallet as the bundler of this process sees it; null where no bundler runs */
  funds: FundsSnapshot | null;
  /** the block height receipts are signed with and the gateway it comes from; null where none is read */
  blockHeight: DashboardBlockHeight | null;
  /** bytes held and retired, and days of disk left at the last hour's rate (storage.ts) */
  storage: StorageFigures;
}

export interface WaitingSummary {
  items: number;
  /** the oldest waiting item's acceptance; null when none waits */
  oldestAcceptedAt: string | null;
  /** how long it has waited, in seconds at `generatedAt` */
  oldestAgeSeconds: number | null;
}

/** the queue's count and its oldest item's age, as of `at` */
async function waitingSummary(readStore: ReadStore, at: number): Promise<WaitingSummary> {
  const { items, oldestAcceptedAt } = await waitingForBundle(readStore);
  return oldestAcceptedAt === undefined
    ? { items, oldestAcceptedAt: null, oldestAgeSeconds: null }
    : { items, oldestAcceptedAt: new Date(oldestAcceptedAt).toISOString(), oldestAgeSeconds: Math.max(0, Math.floor((at - oldestAcceptedAt) / 1000)) };
}

const failuresOf = (recent: readonly RecentFailure[]) => recent.map(({ id, at, reason }) => ({ id, at: new Date(at).toISOString(), reason }));

/** `GET /dashboard/api/tx/:id`: what the item page shows. */
export interface DashboardItem {
  id: string;
  /** from tx-status; null before the acceptance (or for an item nested in another) */
  status: { status: TxStatusDocument['status']; info: TxStatusDocument['info'] } | null;
  /** every event that concerns the item, oldest first */
  timeline: { at: string; type: string; summary: string }[];
  /** the latest bundle plan the item was put in */
  bundle: { planId: string; txId: string | null; state: BundleStatus } | null;
  offsets: TxOffsets | null;
  /** the root item, for an item nested in an uploaded bundle */
  nestedIn: string | null;
}

export interface DashboardQueries {
  summary(): Promise<DashboardSummary>;
  /** undefined: no read model knows the id */
  item(id: DataItemId): Promise<DashboardItem | undefined>;
}

export interface DashboardDeps {
  eventStore: Pick<EventStore, 'headPosition' | 'countEventsAfter'>;
  readStore: ReadStore;
  info: () => ServiceInfo;
  /** the `GET /tx/:id/offsets` query */
  offsets: (id: DataItemId) => Promise<TxOffsets | undefined>;
  /** the bundler's snapshot of the service wallet (balance, bundles waiting for funds) */
  funds?: () => FundsSnapshot;
  /** the block height source's snapshot */
  blockHeight?: () => BlockHeightHealth;
  /** free bytes of DATA_DIR's file system (absent: unknown) */
  freeDiskBytes?: () => Promise<number>;
  now: () => number;
  /** the projections this service runs, counted in the lag (default: all) */
  projections?: readonly AnyProjection[];
}

/** a plan's steps whose events name no item: the item page takes them from bundle-history */
const BUNDLE_ONLY: ReadonlySet<string> = new Set(['BundleAwaitingFunds', 'BundlePosted', 'BundleSeeded', 'BundleConfirmed']);

/** Reads the dashboard's JSON from the read models; never from the event store (but for its head position). */
export function createDashboardQueries(deps: DashboardDeps): DashboardQueries {
  const { eventStore, readStore, info, offsets, now } = deps;
  const get = async <T>(projection: { name: string; version: number }, id: string) => (await readStore.get<T>(collectionOf(projection), id))?.doc;

  return {
    async summary() {
      const at = now();
      const [stats, live, lag, waiting, storage, heldItems] = await Promise.all([
        get<UploadStatsDocument>(uploadStatsProjection, UPLOAD_STATS_ID),
        liveBundlesByState(readStore),
        projectorLag(eventStore, readStore, deps.projections ?? allProjections),
        waitingSummary(readStore, at),
        storageFigures(readStore, deps.freeDiskBytes ?? (() => Promise.reject(new Error('unknown'))), at),
        heldItemsNow(readStore),
      ]);
      const s = stats ?? emptyUploadStats();
      const current = Math.floor(at / MINUTE_MS) * MINUTE_MS;
      const byMinute = new Map(s.minutes.map(([m, items, bytes]) => [m, { items, bytes }]));
      const perMinute = Array.from({ length: RETAINED_MINUTES }, (_, i) => {
        const minute = current - (RETAINED_MINUTES - 1 - i) * MINUTE_MS;
        return { minute: new Date(minute).toISOString(), ...(byMinute.get(minute) ?? { items: 0, bytes: 0 }) };
      });
      return {
        generatedAt: new Date(at).toISOString(),
        info: info(),
        uploads: {
          perMinute,
          lastHour: perMinute.reduce((sum, m) => ({ items: sum.items + m.items, bytes: sum.bytes + m.bytes }), { items: 0, bytes: 0 }),
          total: { items: s.items, bytes: s.bytes },
          failedItems: s.failedItems,
          damagedItems: s.damagedItems ?? 0,
          heldItems,
        },
        bundles: { ...live, permanent: s.bundlesPermanent, dropped: s.bundlesDropped },
        waiting,
        failures: failuresOf(s.recentFailures),
        projector: {
          head: lag.head.toString(),
          behind: lag.behind.toString(),
          byProjection: Object.fromEntries(Object.entries(lag.byProjection).map(([name, d]) => [name, d.toString()])),
        },
        funds: deps.funds?.() ?? null,
        blockHeight: deps.blockHeight ? dashboardBlockHeight(deps.blockHeight()) : null,
        storage,
      };
    },

    async item(id) {
      const [history, status, nested] = await Promise.all([
        get<ItemHistoryDocument>(itemHistoryProjection, id),
        get<TxStatusDocument>(txStatusProjection, id),
        get<NestedOffsetsDocument>(nestedOffsetsProjection, id),
      ]);
      if (!history && !status && !nested) return undefined;
      const planIds = history?.planIds ?? [];
      const [plans, upload, itemOffsets] = await Promise.all([
        readStore.getMany<BundleHistoryDocument>(collectionOf(bundleHistoryProjection), planIds),
        history?.uploadId !== undefined ? get<UploadHistoryDocument>(uploadHistoryProjection, history.uploadId) : undefined,
        offsets(id),
      ]);
      // the plans' own steps whose events name no item; the rest are in the item's history already
      const bundleSteps = [...plans.values()].flatMap(({ doc }) => doc.entries.filter((e) => BUNDLE_ONLY.has(e.type)));
      const entries: HistoryEntry[] = [...(upload?.entries ?? []), ...(history?.entries ?? []), ...bundleSteps];
      // stable: entries of one position (one EventStoreDB commit) keep their order
      entries.sort((a, b) => (BigInt(a.position) < BigInt(b.position) ? -1 : BigInt(a.position) > BigInt(b.position) ? 1 : 0));
      const lastPlan = planIds[planIds.length - 1];
      const plan = lastPlan !== undefined ? plans.get(lastPlan)?.doc : undefined;
      return {
        id,
        status: status ? { status: status.status, info: status.info } : null,
        timeline: entries.map((e) => ({ at: new Date(e.at).toISOString(), type: e.type, summary: e.summary })),
        bundle: lastPlan !== undefined && plan ? { planId: lastPlan, txId: plan.txId ?? null, state: plan.status } : null,
        offsets: itemOffsets ?? null,
        nestedIn: nested?.rootId ?? null,
      };
    },
  };
}
