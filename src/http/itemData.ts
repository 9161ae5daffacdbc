import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { TxNotFound } from '../domain/errors.js';
import { DataItemId } from '../domain/ids.js';
import type { ItemDataQueries } from '../queries/itemData.js';
import { noneMatchHits, rangeOf } from './byteRange.js';
import { sendBlobRange, sendStream } from './sendBlob.js';
import type { PaceWatch } from './bodyRate.js';

/** an id names the same bytes forever */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * An item's bytes are anyone's: served on the service's origin (the dashboard's), an HTML or SVG
 * payload must not run script there. `sandbox` without `allow-same-origin` gives the document an
 * opaque origin of its own: a permaweb page's own script still runs, but as no origin (no cookie,
 * storage or same-origin read of the service's), and no form, popup or top navigation; images and
 * other media are not documents and show as before. (The same isolation a gateway gets by serving
 * each item from a sandbox subdomain.)
 */
const ITEM_DATA_CSP = 'sandbox allow-scripts';

/** what an HTTP header value may hold (Node refuses anything else): tab, visible ASCII and space, obs-text */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** the Content-Type tag as recorded, unless no header can carry it (a control character, a character past U+00FF) */
const contentTypeOf = (recorded: string): string => (HEADER_VALUE.test(recorded) ? recorded : 'application/octet-stream');

/**
 * Answers a payload read (`GET`/`HEAD` of `/:id` and `/tx/:id/data`): headers from the read model,
 * bytes read from the blob store as the client takes them (never the whole item in memory: up
 * to 2 GiB). A client that goes away destroys the response, and the read is then closed.
 *
 * A request pipelined behind others on its connection waits for its turn before it does anything
 * (HTTP/1.1 answers in order): a client that sends hundreds of requests and reads nothing holds
 * no file and no buffer for them, and one that leaves meanwhile is forgotten (listen.ts closes the
 * queued responses with their connection). `pace` times the client while the bytes go (sendBlob.ts).
 */
export async function sendPayload(queries: ItemDataQueries, id: DataItemId, req: Request, res: Response, pace?: PaceWatch): Promise<void> {
  if (!(await turnOf(res))) return;
  const place = await queries.itemPlace(id);
  if (!place) throw new TxNotFound(id);
  const size = place.payloadContentLength;
  const etag = `"${id}"`;
  res.set({ ETag: etag, 'Cache-Control': IMMUTABLE, 'Accept-Ranges': 'bytes', 'Content-Security-Policy': ITEM_DATA_CSP });
  if (noneMatchHits(req.get('if-none-match'), etag)) {
    res.status(304).end();
    return;
  }
  // If-Range with another validator: the client's copy is not this one, it gets the whole payload
  const ifRange = req.get('if-range');
  const answer = rangeOf(ifRange === undefined || ifRange === etag ? req.get('range') : undefined, size);
  if (answer.kind === 'unsatisfiable') {
    res.status(416).set('Content-Range', `bytes */${size}`).end();
    return;
  }
  const range = answer.kind === 'range' ? answer.range : undefined;
  const length = range ? range.end - range.start + 1 : size;
  // opened before the status is set: a blob gone meanwhile is still a clean 404
  const bytes = req.method === 'HEAD' || length === 0 ? undefined : await queries.readPayload(place, range);
  if (req.method !== 'HEAD' && length > 0 && !bytes) throw new TxNotFound(id);
  res.status(range ? 206 : 200);
  // as recorded: res.set would add a charset to text types
  res.setHeader('Content-Type', contentTypeOf(place.payloadContentType));
  res.setHeader('Content-Length', String(length));
  if (range) res.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  if (!bytes) {
    res.end();
    return;
  }
  try {
    await (bytes.kind === 'blob' ? sendBlobRange(bytes.blob, bytes.start, bytes.end, res, pace) : sendStream(bytes.stream, res, pace));
  } catch (error) {
    // the status line is sent: a failure now (the client left, the store failed) can only cut the body
    if (!res.headersSent) throw error;
    res.destroy();
  }
}

/**
 * Resolves true once `res` is its connection's current response (one pipelined behind others is
 * given the socket when they are done), false when it is closed before that (the client left).
 */
export function turnOf(res: ServerResponse): Promise<boolean> {
  if (res.socket) return Promise.resolve(true);
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onSocket = () => {
      res.off('close', onClose);
      resolve(true);
    };
    const onClose = () => {
      res.off('socket', onSocket);
      resolve(false);
    };
    res.once('socket', onSocket);
    res.once('close', onClose);
  });
}

/**
 * In front of `/:id`: it is only for ids, any other single segment (`/dashboard`, `/openapi.json`...)
 * is left to the routers after this one (and ends as `Not Found` when none serves it).
 */
export function onlyIds(req: Request, _res: Response, next: NextFunction): void {
  next(DataItemId.safeParse(req.params['id']).success ? undefined : 'router');
}
