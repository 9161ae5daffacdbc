import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ProjectorLag } from '../../projections/lag.js';
import type { FundsSnapshot } from '../app/bundler/funds.js';
import { markCompactCount } from './gcCount.js';

/**
 * The service's Prometheus metrics. One registry per service instance (never prom-client's global
 * default), so several services in one process (tests) do not clash. Passed through deps; nothing
 * imports a global. Gauges of state (projector lag, live bundles, damaged items) are computed at scrape time.
 */

/** what the scrape-time gauges read; each is a cheap call on a store */
export interface ScrapeSources {
  projectorLag?: () => Promise<ProjectorLag>;
  /** live bundles counted by state, from the live-bundles read model */
  liveBundles?: () => Promise<Record<string, number>>;
  /** items whose stored bytes are damaged now, from the upload-stats read model */
  damagedItems?: () => Promise<number>;
  /** items held now (quarantine), from the quarantine-stats read model */
  heldItems?: () => Promise<number>;
  /** the bundler's view of the service wallet (absent where no bundler runs) */
  funds?: () => Pick<FundsSnapshot, 'balance' | 'waitingBundles'> | undefined;
  /** when the block height receipts are signed with was read from the gateway (ms since the epoch; undefined: never) */
  blockHeightReadAt?: () => number | undefined;
  /** the clock `blockHeightReadAt` is on, for its age (default Date.now; the service's does not step: src/clock.ts) */
  blockHeightClock?: () => number;
  /** bytes held and retired, and days of disk left (src/queries/storage.ts) */
  storage?: () => Promise<{ bytesHeld: number; bytesRetired: number; daysOfDiskLeft: number | null }>;
  /** a scrape-time read failed: the gauge has no value (NaN or no series) for this scrape */
  onError?: (message: string, error: unknown) => void;
}

export type UploadKind = 'single' | 'chunk';
/** `stream`: the signature check once the last byte of a single upload arrived (the deep hash runs while
 * the bytes stream); `stored`: reading and verifying an assembled multi-part upload from the blob store */
export type VerifySource = 'stream' | 'stored' | 'prefix';

export const LIVE_BUNDLE_STATES = ['planned', 'prepared', 'posted', 'seeded', 'confirmed'] as const;

/** Seconds since `start` (a `process.hrtime.bigint()` reading). */
export const secondsSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

export function createMetrics(sources: ScrapeSources = {}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const onError = sources.onError ?? (() => {});

  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern (unmatched: no route) and status (aborted: the client left first)',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its response finishing, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const uploadBytes = new Counter({
    name: 'upload_bytes_received_total',
    help: 'Bytes of data items received: single uploads (POST /tx) and multi-part chunks',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const verifyDuration = new Histogram({
    name: 'data_item_verify_duration_seconds',
    help: 'Data item verification: stream = signature check after the last byte of a single upload; stored = read and verify an assembled multi-part upload; prefix = finish, at finalize, a multi-part upload verified as its chunks came in',
    labelNames: ['source'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5, 15, 60],
    registers: [registry],
  });
  const signDuration = new Histogram({
    name: 'receipt_sign_duration_seconds',
    help: 'Receipt signing, queueing for a signing worker included',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const gatewayErrors = new Counter({
    name: 'gateway_errors_total',
    help: 'Failed calls to the Arweave gateway, by operation and kind (unreachable, timeout, status, answer, rejected, other)',
    labelNames: ['operation', 'kind'] as const,
    registers: [registry],
  });
  const orphanBlobsRemoved = new Counter({
    name: 'orphan_blobs_removed_total',
    help: 'Blobs no event owns removed by the orphan sweep (BLOB_SWEEP), by prefix: items (an acceptance a crash cut) or uploads (an ended upload whose deletion it cut)',
    labelNames: ['prefix'] as const,
    registers: [registry],
  });

  const bytesRetired = new Counter({
    name: 'item_bytes_retired_total',
    help: "Bytes of permanent items' blobs deleted by this process's retention passes (RETAIN_PERMANENT_BYTES_MS); retained_bytes holds the total",
    registers: [registry],
  });

  registerScrapeGauges(registry, sources, onError);
  registerStorageGauges(registry, sources, onError);
  registerMarkCompacts(registry);

  return {
    registry,
    http(method: string, route: string, status: string, seconds: number): void {
      httpRequests.inc({ method, route, status });
      httpDuration.observe({ method, route }, seconds);
    },
    uploadBytes(kind: UploadKind, bytes: number): void {
      uploadBytes.inc({ kind }, bytes);
    },
    verified(source: VerifySource, seconds: number): void {
      verifyDuration.observe({ source }, seconds);
    },
    signed(seconds: number): void {
      signDuration.observe(seconds);
    },
    gatewayError(operation: string, kind: string): void {
      gatewayErrors.inc({ operation, kind });
    },
    orphanBlobRemoved(prefix: string): void {
      orphanBlobsRemoved.inc({ prefix });
    },
    bytesRetired(bytes: number): void {
      bytesRetired.inc(bytes);
    },
    /** the Prometheus text exposition */
    async text(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Full collections of the main isolate since this registry began: a large upload should cause none
 * (docs/benchmarks.md, large uploads), and scripts/bench/large-uploads.ts reads this around each upload.
 */
function registerMarkCompacts(registry: Registry): void {
  const since = markCompactCount();
  let reported = 0;
  new Counter({
    name: 'nodejs_gc_mark_compact_total',
    help: "Mark-compact (full) garbage collections of the service's main thread, every one counted (nodejs_gc_duration_seconds sees one per batch of its observer)",
    registers: [registry],
    collect() {
      const now = markCompactCount() - since;
      this.inc(now - reported);
      reported = now;
    },
  });
}

/** The gauges of state, each read from its source when Prometheus scrapes (none set where its source is absent). */
function registerScrapeGauges(registry: Registry, sources: ScrapeSources, onError: NonNullable<ScrapeSources['onError']>): void {
  new Gauge({
    name: 'projector_lag_events',
    help: 'Events the slowest read model has not projected yet (counted up to READY_MAX_LAG + 1: that value means over the bound)',
    registers: [registry],
    async collect() {
      if (!sources.projectorLag) return;
      try {
        this.set(Number((await sources.projectorLag()).behind));
      } catch (error) {
        this.set(Number.NaN);
        onError('projector lag not read for /metrics', error);
      }
    },
  });
  new Gauge({
    name: 'live_bundles',
    help: 'Bundles not yet permanent or dropped, by state (from the live-bundles read model)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      if (!sources.liveBundles) return;
      this.reset();
      try {
        const counts = await sources.liveBundles();
        for (const state of LIVE_BUNDLE_STATES) this.set({ state }, counts[state] ?? 0);
      } catch (error) {
        onError('live bundles not read for /metrics', error);
      }
    },
  });

  new Gauge({
    name: 'data_items_damaged',
    help: 'Accepted items whose stored bytes no longer match their acceptance, not repaired: never posted until uploaded again (upload-stats read model)',
    registers: [registry],
    async collect() {
      if (!sources.damagedItems) return;
      try {
        this.set(await sources.damagedItems());
      } catch (error) {
        this.set(Number.NaN);
        onError('damaged items not read for /metrics', error);
      }
    },
  });

  new Gauge({
    name: 'data_items_held',
    help: 'Uploaded items held by the operator (quarantine) and not released: in no bundle, 451 on reads (quarantine-stats read model)',
    registers: [registry],
    async collect() {
      if (!sources.heldItems) return;
      try {
        this.set(await sources.heldItems());
      } catch (error) {
        this.set(Number.NaN);
        onError('held items not read for /metrics', error);
      }
    },
  });

  new Gauge({
    name: 'wallet_balance_winston',
    help: 'The service wallet balance in winston, as the bundler last read it from the gateway (no value before the first read)',
    registers: [registry],
    collect() {
      const balance = sources.funds?.()?.balance;
      this.reset();
      if (balance !== undefined) this.set(Number(balance));
    },
  });
  new Gauge({
    name: 'bundles_waiting_for_funds',
    help: 'Bundles waiting because the service wallet cannot pay their reward: fund the wallet (GET /info addresses.arweave)',
    registers: [registry],
    collect() {
      const funds = sources.funds?.();
      this.reset();
      if (funds) this.set(funds.waitingBundles);
    },
  });
  // uploads answer 503 once this passes BLOCK_HEIGHT_MAX_AGE_MS: alert well before (and on +Inf)
  new Gauge({
    name: 'block_height_age_seconds',
    help: 'Seconds since the block height receipts are signed with was read from the gateway; +Inf while none was ever read. Past BLOCK_HEIGHT_MAX_AGE_MS uploads answer 503',
    registers: [registry],
    collect() {
      const readAt = sources.blockHeightReadAt?.();
      this.reset();
      if (sources.blockHeightReadAt) this.set(readAt === undefined ? Infinity : Math.max(0, (sources.blockHeightClock ?? Date.now)() - readAt) / 1000);
    },
  });
}

/**
 * What the items' bytes take: held in the blob store, retired after permanence (read from the
 * gateway since), and days of disk left at the last hour's rate; one read of the stores per scrape.
 */
function registerStorageGauges(registry: Registry, sources: ScrapeSources, onError: NonNullable<ScrapeSources['onError']>): void {
  let scrape: Promise<Awaited<ReturnType<NonNullable<ScrapeSources['storage']>>> | undefined> | undefined;
  /** one read for the three gauges of a scrape (prom-client collects them one after another) */
  const figures = () => {
    scrape ??= (sources.storage?.() ?? Promise.resolve(undefined)).catch((error: unknown) => {
      onError('storage figures not read for /metrics', error);
      return undefined;
    });
    const current = scrape;
    setImmediate(() => (scrape = undefined));
    return current;
  };
  const gauge = (name: string, help: string, value: (f: NonNullable<Awaited<ReturnType<typeof figures>>>) => number | null) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        if (!sources.storage) return;
        this.reset();
        const f = await figures();
        const v = f ? value(f) : Number.NaN;
        if (v !== null) this.set(v);
      },
    });
  gauge(
    'item_bytes_held',
    'Bytes of accepted items kept in the blob store (accepted less retired; the upload-stats and retention-stats read models)',
    (f) => f.bytesHeld,
  );
  gauge(
    'item_bytes_retired',
    'Bytes of items whose local copy was deleted after permanence (RETAIN_PERMANENT_BYTES_MS): served from the gateway',
    (f) => f.bytesRetired,
  );
  gauge(
    'disk_days_left',
    "Free disk of DATA_DIR over the last hour's accepted bytes times 24: days until full at that rate, before retention gives any back (no value when nothing came in the last hour)",
    (f) => f.daysOfDiskLeft,
  );
}
