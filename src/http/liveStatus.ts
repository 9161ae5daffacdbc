import { Router, type Request, type Response } from 'express';
import { clientKeyOf } from '../domain/clientKey.js';
import { ServiceUnavailable, TooManyRequests, TxNotFound, UploadNotFound } from '../domain/errors.js';
import type { TxStatusDocument } from '../../projections/txStatus.js';
import type { UploadDocument } from '../../projections/uploads.js';
import type { StatusChange, StatusSink, WatchOpening } from '../queries/statusWatch.js';
import type { StatusStreams } from '../queries/statusStreams.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import { txEventsRoute, uploadEventsRoute } from './openapi/routes/liveStatus.js';
import { statusBody } from './queries.js';
import { uploadStatusBody } from './multipart.js';

export interface LiveStatusLimits {
  /** streams open at once per client (an IPv6 /64); past it 429 with Retry-After (0: no limit) */
  perClient: number;
  /** a comment this often keeps the connection (and proxies) from reading it as idle */
  heartbeatMs: number;
  /** a stream ends after this long; its client resumes with Last-Event-ID */
  maxLifetimeMs: number;
  /** bytes waiting for a client that does not take them; past it, its connection is cut */
  maxBufferedBytes: number;
}

/** `id:`, `event:` and one `data:` line (JSON has no newline), as the EventSource format has them */
const messageOf = (id: bigint, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** a Last-Event-ID this service gave (a position); anything else is no resumption */
const sinceOf = (req: Request): bigint | undefined => {
  const raw = req.get('last-event-id')?.trim();
  return raw !== undefined && /^\d{1,40}$/.test(raw) ? BigInt(raw) : undefined;
};

const changeOf = (c: StatusChange<unknown>) => ({
  event: c.event,
  ...(c.current ? { current: true } : {}),
  ...(c.at !== undefined ? { at: c.at } : {}),
  ...c.facts,
});

/**
 * `GET /tx/:id/events` and `GET /chunks/:token/:uploadId/events` (CONTRACT.md section 6): server-sent
 * events of a status, from the process's one live feed (src/queries/liveFeed.ts). Each stream is
 * bounded per client (count), in time (lifetime) and in memory (bytes waiting for its reader).
 */
export function liveStatusRouter(streams: StatusStreams, limits: LiveStatusLimits): Router {
  const router = Router();
  const perClient = new Map<string, number>();

  /** takes a place of the client's, given back when the answer closes (whatever ends it) */
  function admit(req: Request, res: Response) {
    const key = clientKeyOf(req.ip ?? req.socket.remoteAddress);
    const count = perClient.get(key) ?? 0;
    if (limits.perClient > 0 && count >= limits.perClient) {
      throw new TooManyRequests(`${count} status streams open from ${key}`, Math.max(1, Math.ceil(limits.heartbeatMs / 1000)));
    }
    perClient.set(key, count + 1);
    res.once('close', () => {
      const left = (perClient.get(key) ?? 1) - 1;
      if (left === 0) perClient.delete(key);
      else perClient.set(key, left);
    });
  }

  async function stream<D>(
    req: Request,
    res: Response,
    open: (sink: StatusSink<D>, since?: bigint) => Promise<WatchOpening<D>>,
    bodyOf: (doc: D) => Record<string, unknown>,
    notFound: () => Error,
  ) {
    admit(req, res);
    const out = createSseWriter(res, limits);
    const encode = (c: StatusChange<D>) => messageOf(c.position, c.event, { ...bodyOf(c.doc), change: changeOf(c) });
    const opening = await open({ send: (c) => out.send(encode(c), c.terminal), end: () => out.end() }, sinceOf(req));
    if (opening.state === 'unknown') throw notFound();
    if (opening.state === 'behind') {
      res.set('Retry-After', '1');
      throw new ServiceUnavailable('the read model is behind the live feed');
    }
    res.once('close', opening.close);
    // the client left while the stream was opened: no 'close' is to come
    if (res.destroyed) opening.close();
    const { first } = opening;
    out.start(first ? encode(first) : '', opening.ended);
  }

  serve(router, txEventsRoute, async (req, res) => {
    const { id } = parseParams(txEventsRoute, req);
    await stream<TxStatusDocument>(
      req,
      res,
      (sink, since) => streams.item(id, sink, since),
      (doc) => ({ id, ...statusBody(doc) }),
      () => new TxNotFound(id),
    );
  });
  serve(router, uploadEventsRoute, async (req, res) => {
    const { uploadId } = parseParams(uploadEventsRoute, req);
    await stream<UploadDocument>(
      req,
      res,
      (sink, since) => streams.upload(uploadId, sink, since),
      uploadStatusBody,
      () => new UploadNotFound(uploadId),
    );
  });
  return router;
}

/**
 * The writing side of one stream: messages before the first are held (the feed may deliver while the
 * first is read); a reader that leaves more than `maxBufferedBytes` unread is cut; heartbeats and the
 * lifetime are timers cleared when the answer closes.
 */
function createSseWriter(res: Response, limits: LiveStatusLimits) {
  let started = false;
  let ended = false;
  const held: { text: string; last: boolean }[] = [];
  let heldBytes = 0;
  const timers: NodeJS.Timeout[] = [];
  const write = (text: string, last: boolean) => {
    if (ended || res.destroyed) return;
    // the client does not take what it was sent: cut, it resumes with its last id when it reads again
    if (res.writableLength > limits.maxBufferedBytes) {
      ended = true;
      res.destroy();
      return;
    }
    if (last) {
      ended = true;
      res.end(text);
    } else if (text) res.write(text);
  };
  res.once('close', () => {
    ended = true;
    for (const t of timers) clearInterval(t);
  });
  return {
    send(text: string, last: boolean) {
      if (started) write(text, last);
      else if ((heldBytes += Buffer.byteLength(text)) <= limits.maxBufferedBytes) held.push({ text, last });
      else res.destroy();
    },
    end() {
      if (started) write('', true);
      else held.push({ text: '', last: true });
    },
    start(first: string, last: boolean) {
      res.status(200);
      res.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
      started = true;
      // HEAD (which Express routes as GET): the headers, and no stream to hold open
      if (res.req.method === 'HEAD') {
        ended = true;
        res.end();
        return;
      }
      res.flushHeaders();
      write(first, last);
      for (const h of held) write(h.text, h.last);
      if (ended) return;
      timers.push(setInterval(() => write(': heartbeat\n\n', false), limits.heartbeatMs));
      timers.push(setTimeout(() => write('', true), limits.maxLifetimeMs));
    },
  };
}
