import { z } from 'zod';
import { defineRoute } from '../route.js';

/** Liveness, readiness and metrics (src/http/health.ts): at the root only, for probes and Prometheus. */

const tag = 'operations';
const noStore = { 'cache-control': { schema: z.literal('no-store'), description: 'never cached' } };

export const ReadinessBody = z
  .object({
    status: z.enum(['ready', 'unavailable', 'stopping']),
    failed: z.array(z.string()).meta({ description: 'the failed checks in check order; `shutdown` first while stopping' }),
    checks: z
      .record(
        z.string(),
        z.object({
          ok: z.boolean(),
          error: z.string().optional().meta({ description: "the failure's kind (`timeout`, `ReadStoreUnavailable`...), never its message" }),
          behind: z.number().optional().meta({ description: 'projectorLag: events the slowest read model is behind' }),
          max: z.number().optional().meta({ description: 'projectorLag: the bound (READY_MAX_LAG)' }),
          ahead: z.array(z.string()).optional().meta({
            description:
              "projectorLag: read models whose checkpoint is beyond the event store's head (an older event store was put back): run `npm run rebuild`",
          }),
          free: z.number().optional().meta({ description: "diskSpace: bytes free on the data directory's disk" }),
          min: z.number().optional().meta({ description: 'diskSpace: the floor (MIN_FREE_DISK_BYTES)' }),
          height: z.number().optional().meta({ description: 'blockHeight: the block height receipts are signed with, fresh or not' }),
          readAt: z.iso.datetime().optional().meta({ description: 'blockHeight: when that height was read from the gateway' }),
          reason: z
            .string()
            .optional()
            .meta({ description: 'blockHeight: why no receipt can be signed (none read yet, or read longer ago than BLOCK_HEIGHT_MAX_AGE_MS)' }),
        }),
      )
      .meta({
        description:
          'by check: eventStore and readStore (a read and a write no reader sees), blobStore (a temporary blob written and dropped), diskSpace, blockHeight where uploads are taken, and projectorLag where read models are served',
      }),
  })
  .meta({ id: 'Readiness' });

export const healthRoute = defineRoute({
  operationId: 'getHealth',
  method: 'get',
  path: '/health',
  tag,
  summary: 'Liveness',
  description: 'Answers while the process serves HTTP at all.',
  responses: {
    200: { description: 'alive', content: { contentType: 'application/json', schema: z.object({ status: z.literal('ok') }) }, headers: noStore },
  },
});

export const readyRoute = defineRoute({
  operationId: 'getReadiness',
  method: 'get',
  path: '/ready',
  tag,
  summary: 'Readiness, for load balancers',
  description: 'Real, bounded calls to the event store, the read store and the blob store, and the projector lag against its bound.',
  responses: {
    200: { description: 'every check passed', content: { contentType: 'application/json', schema: ReadinessBody }, headers: noStore },
    503: { description: 'a check failed, or the process is stopping', content: { contentType: 'application/json', schema: ReadinessBody }, headers: noStore },
  },
});

export const metricsRoute = defineRoute({
  operationId: 'getMetrics',
  method: 'get',
  path: '/metrics',
  tag,
  summary: 'Prometheus metrics',
  description:
    'HTTP requests by route and status, upload bytes, verify and receipt signing durations, projector lag, bundles by state, gateway errors, process metrics.',
  responses: {
    200: { description: 'Prometheus text exposition format', content: { contentType: 'text/plain; version=0.0.4', schema: z.string() }, headers: noStore },
  },
});
