import type { DiskSpace } from '../adapters/fs/diskSpace.js';
import { Router } from 'express';
import type { ProjectorLag } from '../../projections/lag.js';
import type { BlobStore } from '../ports/blobStore.js';
import type { EventStore } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import type { Metrics } from '../metrics/metrics.js';
import type { BlockHeightSource } from '../ports/gateway.js';
import { serve } from './openapi/serve.js';
import { DEFAULT_RETRY_AFTER_SECONDS } from './errors.js';
import { healthRoute, metricsRoute, readyRoute } from './openapi/routes/ops.js';

/**
 * Operations endpoints, served at the root only (they are for probes, load balancers and Prometheus,
 * not for API clients, so they are not part of the versioned `/v1` API):
 * - `GET /health`: liveness, 200 `{ status: 'ok' }` while the process serves HTTP at all.
 * - `GET /ready`: readiness, 200 when every check passes, else 503; the body names each check (below).
 * - `GET /metrics`: Prometheus text format.
 */

export interface CheckResult {
  ok: boolean;
  /** the failure's class name (`ReadStoreUnavailable`, `timeout`...), never its message: no paths or internals */
  error?: string;
  /** projectorLag only: events behind, and the bound */
  behind?: number;
  max?: number;
  /** projectorLag only, when some: the read models whose checkpoint is beyond the event store's head */
  ahead?: string[];
  /** diskSpace only: bytes free for the service on the data directory's disk, and the floor */
  free?: number;
  min?: number;
  /** blockHeight only: the height receipts are signed with, when it was read (ISO), and why it fails */
  height?: number;
  readAt?: string;
  reason?: string;
}

export interface ReadinessReport {
  status: 'ready' | 'unavailable' | 'stopping';
  /** names of the failed checks, in check order (`shutdown` while stopping) */
  failed: string[];
  checks: Record<string, CheckResult>;
}

export interface ReadinessOptions {
  eventStore: Pick<EventStore, 'headPosition' | 'probeWrite'>;
  readStore: Pick<ReadStore, 'getCheckpoint' | 'probeWrite'>;
  blobStore: Pick<BlobStore, 'stat' | 'createWriter' | 'probeWrite'>;
  /** the data directory and MIN_FREE_DISK_BYTES: ready while its disk has at least that free (0: any) */
  diskSpace?: Pick<DiskSpace, 'sample' | 'free' | 'floorBytes'>;
  /** where receipts are signed: ready while a block height read recently enough is known (BLOCK_HEIGHT_MAX_AGE_MS) */
  blockHeight?: Pick<BlockHeightSource, 'health'>;
  /** absent: no lag check (a commands-only replica answers from its own streams, not from read models) */
  projectorLag?: () => Promise<ProjectorLag>;
  /** READY_MAX_LAG: ready while the slowest read model is at most this many events behind */
  maxLag: number;
  /** each check's time limit */
  timeoutMs?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface Readiness {
  check(): Promise<ReadinessReport>;
  /** from now on, not ready (shutdown): load balancers take this instance out */
  stopping(): void;
}

class CheckTimeout extends Error {
  override readonly name = 'timeout';
}

async function within<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new CheckTimeout(`no answer within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** a key that never names a blob: stat answers "absent" after a real round trip to the store */
const PROBE_KEY = 'readiness-probe';
/** what the blob store's probe writes (and drops): a few bytes, so a disk that takes none fails it */
const PROBE_BYTES = Buffer.from('readiness-probe\n');

/**
 * Cheap real calls, run in parallel, each bounded: the event store's head position and a write no
 * reader sees; a checkpoint of the read store and such a write; a stat and a temp blob written and
 * aborted in the blob store (the disk or GridFS is there and takes bytes); the free space of the data
 * directory's disk against its floor; then the projector lag against its bound, and no read model
 * ahead of the event store. A store that is full or read-only fails its check, not only one that is down.
 */
export function createReadiness(options: ReadinessOptions): Readiness {
  const { eventStore, readStore, blobStore, diskSpace, blockHeight, projectorLag, maxLag, timeoutMs = 2_000, log = () => {} } = options;
  let stopping = false;

  const run = async (name: string, work: () => Promise<CheckResult | void>): Promise<[string, CheckResult]> => {
    try {
      return [name, (await within(timeoutMs, work)) ?? { ok: true }];
    } catch (error) {
      log('readiness check failed', { check: name, error: error instanceof Error ? error.message : String(error) });
      return [name, { ok: false, error: error instanceof Error ? error.name : 'Error' }];
    }
  };

  return {
    async check() {
      const checks = await Promise.all([
        run('eventStore', async () => {
          await eventStore.headPosition();
          await eventStore.probeWrite?.();
        }),
        run('readStore', async () => {
          await readStore.getCheckpoint(PROBE_KEY);
          await readStore.probeWrite();
        }),
        run('blobStore', async () => {
          await blobStore.stat(PROBE_KEY);
          if (blobStore.probeWrite) return blobStore.probeWrite();
          const writer = await blobStore.createWriter();
          try {
            await writer.write(PROBE_BYTES);
          } finally {
            await writer.abort();
          }
        }),
        ...(diskSpace && diskSpace.floorBytes > 0
          ? [
              run('diskSpace', async () => {
                // the disk as it is now, less what uploads in flight are still to write
                await diskSpace.sample();
                const free = diskSpace.free();
                return { ok: free >= diskSpace.floorBytes, free, min: diskSpace.floorBytes };
              }),
            ]
          : []),
        ...(blockHeight ? [run('blockHeight', async () => blockHeightCheck(blockHeight.health()))] : []),
        ...(projectorLag
          ? [
              run('projectorLag', async () => {
                const lag = await projectorLag();
                const behind = Number(lag.behind);
                const ahead = lag.ahead.map((model) => model.checkpoint);
                return { ok: behind <= maxLag && ahead.length === 0, behind, max: maxLag, ...(ahead.length > 0 ? { ahead } : {}) };
              }),
            ]
          : []),
      ]);
      const failed = checks.filter(([, result]) => !result.ok).map(([name]) => name);
      if (stopping) failed.unshift('shutdown');
      const status = stopping ? 'stopping' : failed.length > 0 ? 'unavailable' : 'ready';
      return { status, failed, checks: Object.fromEntries(checks) };
    },
    stopping() {
      stopping = true;
    },
  };
}

/** fails while no receipt can be signed: no height read from the gateway yet, or the last one too old */
function blockHeightCheck(health: ReturnType<BlockHeightSource['health']>): CheckResult {
  const known = {
    ...(health.height !== undefined ? { height: health.height } : {}),
    ...(health.readAt !== undefined ? { readAt: new Date(health.readAt).toISOString() } : {}),
  };
  if (health.fresh) return { ok: true, ...known };
  const gateway = health.reachable ? 'the gateway answers' : 'the gateway is unreachable';
  const reason =
    health.height === undefined
      ? `no block height read from the gateway yet; ${gateway}`
      : `the block height was read ${health.readAt === undefined ? 'at an unknown time' : 'more than BLOCK_HEIGHT_MAX_AGE_MS ago'}; ${gateway}`;
  return { ok: false, ...known, reason };
}

export interface OpsDeps {
  readiness: Readiness;
  metrics: Pick<Metrics, 'text'>;
}

export function opsRouter({ readiness, metrics }: OpsDeps): Router {
  const router = Router();
  const noStore = { 'Cache-Control': 'no-store' };
  serve(router, healthRoute, (_req, res) => {
    res.set(noStore).json({ status: 'ok' });
  });
  serve(router, readyRoute, async (_req, res) => {
    const report = await readiness.check();
    const ready = report.failed.length === 0;
    // a 503 says when to ask again, as every 503 does (CONTRACT.md section 10)
    if (!ready) res.set('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS[503]));
    res
      .set(noStore)
      .status(ready ? 200 : 503)
      .json(report);
  });
  serve(router, metricsRoute, async (_req, res) => {
    const { contentType, body } = await metrics.text();
    res.set(noStore).set('Content-Type', contentType).send(body);
  });
  return router;
}
