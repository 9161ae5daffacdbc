import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** A gateway the bridge posts to: its route's URL, its host (as receipts name it), its admin key. */
export interface BridgeGateway {
  url: string;
  host: string;
  key: string;
}

export type PostOutcome =
  | { ok: true; status: number }
  /** `retry`: worth posting again later (no answer, or any status but 2xx, 400 and 413: 401, 429, 5xx, a redirect); not after 400 or 413 (the body itself is refused) */
  | { ok: false; status?: number; error: string; retry: boolean };

/**
 * The largest body a post carries: ar-io-node parses the route's body with `express.json()`, whose
 * default limit is 100 KiB (body-parser's `limit: '100kb'`); a larger one is answered 413.
 */
export const MAX_POST_BODY_BYTES = 100 * 1024;

/** how many of these JSON texts, from the first, one array body holds within MAX_POST_BODY_BYTES (at least one) */
export function fitInBody(texts: readonly string[]): number {
  let bytes = 2;
  let fit = 0;
  while (fit < texts.length && (fit === 0 || bytes + Buffer.byteLength(texts[fit]!) + 1 <= MAX_POST_BODY_BYTES)) {
    bytes += Buffer.byteLength(texts[fit]!) + 1;
    fit++;
  }
  return fit;
}

const FINAL_STATUSES = new Set([400, 413]);

/** keeps connections to the gateways open between posts (a batch every interval at most, four at once a gateway) */
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
/** an answer's body is read only this far (ar-io-node answers a line): past it the connection is dropped */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs `body` to `url` and resolves its answer's status; rejects when no answer came within `timeoutMs`
 * (a `TimeoutError`) or the gateway cannot be reached. The answer's body is drained, not kept, within
 * the same time and MAX_ANSWER_BYTES, so the connection is used again and a gateway cannot hold it.
 * node's own client rather than fetch: about a quarter of its CPU per post.
 */
export type Poster = (url: string, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<number>;

export const httpPost: Poster = (url, headers, body, timeoutMs) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
    const req = send(target, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      resolve(res.statusCode ?? 0);
      let read = 0;
      res.on('data', (part: Buffer) => {
        read += part.length;
        if (read > MAX_ANSWER_BYTES) req.destroy();
      });
      res.on('error', () => undefined);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' })), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end(body);
  });

/**
 * One post of a JSON body to the gateway's queue route, as the reference bundler makes it
 * (ardriveapp/turbo-upload-service src/jobs/optical-post.ts at c660dd8: `Content-Type:
 * application/json`, `Authorization: Bearer <admin key>`), bounded by `timeoutMs` whatever the
 * gateway does; its answer's body is not kept (a gateway cannot make the bridge hold it).
 */
export async function postToGateway(gateway: BridgeGateway, body: string, timeoutMs: number, post: Poster = httpPost): Promise<PostOutcome> {
  try {
    const status = await post(gateway.url, { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` }, body, timeoutMs);
    if (status >= 200 && status < 300) return { ok: true, status };
    return { ok: false, status, error: `answered ${status}`, retry: !FINAL_STATUSES.has(status) };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    const cause = error instanceof Error ? `: ${error.message}` : '';
    return { ok: false, error: timedOut ? `no answer within ${timeoutMs} ms` : `unreachable${cause}`, retry: true };
  }
}

/**
 * Whether the gateway is up and takes the key, without queueing anything: an empty array passes
 * ar-io-node's admin check (401 `Unauthorized` before any other) and is then refused by the route's
 * own (400 `Must provide array of data item headers`), so 400 is the healthy answer.
 */
export async function probeGateway(gateway: BridgeGateway, timeoutMs: number, post: Poster = httpPost): Promise<boolean> {
  const outcome = await postToGateway(gateway, '[]', timeoutMs, post);
  return outcome.ok || outcome.status === 400;
}
