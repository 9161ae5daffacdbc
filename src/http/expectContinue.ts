import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue`: the client sends the headers, then waits for `100 Continue` before it
 * sends the body. Node answers 100 Continue at once, before any route has seen the headers: an
 * upload refused on its headers (413 too large, 429, 503 temporary space, 400 Invalid token...)
 * got 100 Continue and then the refusal, and the client began sending a body nobody reads. On the
 * routes that take an upload body, 100 Continue is sent only once the body starts being read
 * (`continueIfExpected`, from the upload guard, limits.ts), so a refusal made before comes alone;
 * a final answer without 100 Continue closes the connection (Node), so a body sent anyway is not
 * read as a next request. Every other request keeps Node's behaviour.
 */

/** the upload routes of limits.ts (at the root and under /v1): single uploads and chunks */
const UPLOAD_PATH = /^(?:\/v1)?\/(?:tx(?:\/[^/]+)?|chunks\/[^/]+\/[^/]+\/\d+)\/?$/i;

const isUpload = (req: IncomingMessage): boolean => req.method === 'POST' && UPLOAD_PATH.test((req.url ?? '').split('?')[0]!);

/** responses whose 100 Continue waits for their request's body to be read */
const waiting = new WeakMap<IncomingMessage, ServerResponse>();

export function deferContinueOnUploads(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (isUpload(req)) waiting.set(req, res);
    else res.writeContinue();
    server.emit('request', req, res);
  });
}

/** Sends the 100 Continue the request waits for, if any, once: its body is about to be read. */
export function continueIfExpected(req: IncomingMessage): void {
  const res = waiting.get(req);
  if (!res) return;
  waiting.delete(req);
  if (!res.headersSent && !res.writableEnded) res.writeContinue();
}
