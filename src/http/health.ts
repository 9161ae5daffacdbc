import { Router } from 'express';
import type { ProjectorLag } from '../../projections/lag.js';
import type { BlobStore } from '../ports/blobStore.js';
import type { EventStore } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import type { Metrics } from '../metrics/metrics.js';

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
}

export interface ReadinessReport {
  status: 'ready' | 'unavailable' | 'stopping';
  /** names of the failed checks, in check order (`shutdown` while stopping) */
  failed: string[];
  checks: Record<string, CheckResult>;
}

export interface ReadinessOptions {
  eventStore: Pick<EventStore, 'headPosition'>;
  readStore: Pick<ReadStore, 'getCheckpoint'>;
  blobStore: Pick<BlobStore, 'stat' | 'createWriter'>;
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

/**
 * Cheap real calls, run in parallel, each bounded: the event store's head position; a checkpoint of
 * the read store; a stat and a temp writer created and aborted in the blob store (the disk or
 * GridFS is there and takes files); then the projector lag against its bound.
 */
export function createReadiness(options: ReadinessOptions): Readiness {
  const { eventStore, readStore, blobStore, projectorLag, maxLag, timeoutMs = 2_000, log = () => {} } = options;
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
        run('eventStore', async () => void (await eventStore.headPosition())),
        run('readStore', async () => void (await readStore.getCheckpoint(PROBE_KEY))),
        run('blobStore', async () => {
          await blobStore.stat(PROBE_KEY);
          await (await blobStore.createWriter()).abort();
        }),
        ...(projectorLag
          ? [
              run('projectorLag', async () => {
                const behind = Number((await projectorLag()).behind);
                return { ok: behind <= maxLag, behind, max: maxLag };
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

export interface OpsDeps {
  readiness: Readiness;
  metrics: Pick<Metrics, 'text'>;
}

export function opsRouter({ readiness, metrics }: OpsDeps): Router {
  const router = Router();
  const noStore = { 'Cache-Control': 'no-store' };
  router.get('/health', (_req, res) => {
    res.set(noStore).json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    const report = await readiness.check();
    res.set(noStore).status(report.failed.length === 0 ? 200 : 503).json(report);
  });
  router.get('/metrics', async (_req, res) => {
    const { contentType, body } = await metrics.text();
    res.set(noStore).set('Content-Type', contentType).send(body);
  });
  return router;
}
