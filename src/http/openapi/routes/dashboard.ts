import { z } from 'zod';
import { defineRoute } from '../route.js';
import { dataItemIdParam } from '../params.js';
import { ServiceInfoBody, TxOffsetsBody, TxStatusBody } from '../bodies.js';

/**
 * The status and item pages for people (src/http/dashboard/), at the root only, and the JSON they
 * poll. The JSON objects are open (more fields may come): the pages are their only clients.
 */

const tag = 'dashboard';
const html = { contentType: 'text/html', schema: z.string() };
const Counts = z.object({ items: z.int().nonnegative(), bytes: z.int().nonnegative() });

export const DashboardSummaryBody = z
  .looseObject({
    generatedAt: z.iso.datetime(),
    info: ServiceInfoBody,
    uploads: z.looseObject({
      perMinute: z.array(z.looseObject({ minute: z.string(), items: z.int().nonnegative(), bytes: z.int().nonnegative() })),
      lastHour: Counts,
      total: Counts,
      failedItems: z.int().nonnegative(),
      damagedItems: z.int().nonnegative().meta({ description: 'items whose stored bytes no longer match their acceptance, not repaired yet' }),
      heldItems: z.int().nonnegative().meta({ description: 'uploaded items held by the operator (quarantine) and not released' }),
    }),
    bundles: z.record(z.string(), z.int().nonnegative()).meta({ description: 'live bundles by state' }),
    waiting: z
      .looseObject({ items: z.int().nonnegative(), oldestAcceptedAt: z.iso.datetime().nullable(), oldestAgeSeconds: z.int().nonnegative().nullable() })
      .meta({ description: 'items accepted (or requeued) and in no bundle yet; the oldest one, null when none waits' }),
    failures: z
      .array(z.looseObject({ id: z.string(), at: z.iso.datetime(), reason: z.string() }))
      .meta({ description: 'the last items FAILED (out of bundle attempts, or damaged), newest first; requeued or repaired ones leave the list' }),
    projector: z.looseObject({ head: z.string(), behind: z.string(), byProjection: z.record(z.string(), z.string()) }),
    blockHeight: z
      .looseObject({
        height: z.int().nonnegative().nullable(),
        readAt: z.iso.datetime().nullable(),
        fresh: z.boolean().meta({ description: 'read within BLOCK_HEIGHT_MAX_AGE_MS: receipts can be signed (else uploads answer 503)' }),
        maxAgeMs: z.int().positive(),
        reachable: z.boolean(),
        lastError: z.string().nullable(),
        lastErrorAt: z.iso.datetime().nullable(),
      })
      .nullable()
      .meta({ description: 'the block height receipts are signed with, and the gateway it is read from' }),
  })
  .meta({ id: 'DashboardSummary' });

export const DashboardItemBody = z
  .looseObject({
    id: z.string(),
    status: TxStatusBody.pick({ status: true, info: true }).nullable(),
    timeline: z.array(z.looseObject({ at: z.iso.datetime(), type: z.string(), summary: z.string() })),
    bundle: z.looseObject({ planId: z.string(), txId: z.string().nullable(), state: z.string() }).nullable(),
    offsets: TxOffsetsBody.nullable(),
    nestedIn: z.string().nullable(),
  })
  .meta({ id: 'DashboardItem' });

export const dashboardPageRoute = defineRoute({
  operationId: 'getDashboard',
  method: 'get',
  path: '/dashboard',
  tag,
  summary: 'Status page',
  description:
    'Service information, uploads per minute over the last hour, projector lag, bundles by state, items waiting for a bundle and the last failures; refreshes itself.',
  responses: { 200: { description: 'the page', content: html } },
});

export const dashboardItemPageRoute = defineRoute({
  operationId: 'getDashboardItem',
  method: 'get',
  path: '/dashboard/tx/:id',
  tag,
  summary: 'Item page',
  description: "An item's timeline, bundle and offsets. Any id: the page itself says when the service does not know it.",
  params: { id: { ...dataItemIdParam, description: 'the data item id (any text: the page says when it is unknown)' } },
  responses: { 200: { description: 'the page', content: html } },
});

export const dashboardSummaryRoute = defineRoute({
  operationId: 'getDashboardSummary',
  method: 'get',
  path: '/dashboard/api/summary',
  tag,
  summary: "The status page's figures",
  description: 'Every figure from a read model.',
  responses: { 200: { description: 'the summary', content: { contentType: 'application/json', schema: DashboardSummaryBody } } },
});

export const dashboardItemRoute = defineRoute({
  operationId: 'getDashboardItemData',
  method: 'get',
  path: '/dashboard/api/tx/:id',
  tag,
  summary: "The item page's data",
  description: 'The timeline from the history read model, the bundle and the offsets.',
  params: { id: dataItemIdParam },
  responses: { 200: { description: 'the item', content: { contentType: 'application/json', schema: DashboardItemBody } } },
  errors: ['TX_NOT_FOUND'],
});
