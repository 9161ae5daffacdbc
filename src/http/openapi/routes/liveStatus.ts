import { z } from 'zod';
import { defineRoute, type NamedValue } from '../route.js';
import { dataItemIdParam, tokenParam, uploadIdParam } from '../params.js';

/** Live status (CONTRACT.md section 6): server-sent events of an item's or an upload's status changes. */

const stream = {
  contentType: 'text/event-stream',
  schema: z.string().describe('messages `id: <position>`, `event: <change>`, `data: <JSON>`; comments (`: heartbeat`) keep it open'),
};
const lastEventId: NamedValue = {
  schema: z.string().regex(/^\d+$/),
  description: 'the `id:` of the last message received: only later changes are sent (changes since, coalesced into one message first when there were any)',
};
const sharedRules =
  'The first message is the current state (`change.current: true`), then each change as it is recorded; the stream ends after a final state. ' +
  'A heartbeat comment comes every LIVE_STATUS_HEARTBEAT_MS; the stream ends after LIVE_STATUS_MAX_LIFETIME_MS (resume with `Last-Event-ID`), ' +
  'and a client that does not take its messages is cut once LIVE_STATUS_BUFFER_BYTES wait for it. More than LIVE_STATUS_STREAMS_PER_CLIENT streams ' +
  'open from one client: 429 `Too Many Requests` with `Retry-After`.';

export const txEventsRoute = defineRoute({
  operationId: 'getTxEvents',
  method: 'get',
  path: '/tx/:id/events',
  tag: 'items',
  summary: 'Status changes of a data item, live',
  description:
    'Server-sent events. Each `data:` is the status as `GET /tx/:id/status` answers it, with `id` and `change: { event, at?, bundleId?, blockHeight?, confirmations?, reason? }`; ' +
    'events: `accepted`, `bundled`, `awaiting-funds`, `signed`, `posted`, `seeded`, `confirmed`, `permanent`, `dropped`, `failed`, `damaged`, `repaired`, `requeued`. ' +
    'Final states: FINALIZED and FAILED. ' +
    sharedRules,
  params: { id: dataItemIdParam },
  headers: { 'last-event-id': lastEventId },
  responses: { 200: { description: 'the stream', content: stream } },
  errors: ['TX_NOT_FOUND', 'TOO_MANY_REQUESTS'],
});

export const uploadEventsRoute = defineRoute({
  operationId: 'getUploadEvents',
  method: 'get',
  path: '/chunks/:token/:uploadId/events',
  tag: 'multi-part uploads',
  summary: 'Status changes of a multi-part upload, live',
  description:
    'Server-sent events. Each `data:` is the status as `GET /chunks/:token/:uploadId/status` answers it, with `change: { event, at? }`; ' +
    'events are the statuses in lower case (`assembling`, `validating`, `finalizing`, `finalized`, `invalid`, `underfunded`, `expired`), final: all but the first three. ' +
    sharedRules,
  params: { token: tokenParam, uploadId: uploadIdParam },
  headers: { 'last-event-id': lastEventId },
  responses: { 200: { description: 'the stream', content: stream } },
  errors: ['INVALID_TOKEN', 'UPLOAD_NOT_FOUND', 'TOO_MANY_REQUESTS'],
});
