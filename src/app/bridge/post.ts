import { bestEffort } from '../../bestEffort.js';

/** A gateway the bridge posts to: its route's URL, its host (as receipts name it), its admin key. */
export interface BridgeGateway {
  url: string;
  host: string;
  key: string;
}

export type PostOutcome =
  | { ok: true; status: number }
  /** `retry`: worth posting again later (no answer, 401, 403, 408, 429, 5xx); not after 400 or 413 (the body itself is refused) */
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

/**
 * One post of a JSON body to the gateway's queue route, as the reference bundler makes it
 * (ardriveapp/turbo-upload-service src/jobs/optical-post.ts at c660dd8: `Content-Type:
 * application/json`, `Authorization: Bearer <admin key>`), bounded by `timeoutMs` whatever the
 * gateway does; its answer's body is not read (a gateway cannot make the bridge hold it).
 */
export async function postToGateway(gateway: BridgeGateway, body: string, timeoutMs: number, fetchFn: typeof fetch = fetch): Promise<PostOutcome> {
  try {
    const res = await fetchFn(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.body) await bestEffort(res.body.cancel(), 'the answer is not read: its status says all, and a failed cancel holds nothing');
    if (res.ok) return { ok: true, status: res.status };
    return { ok: false, status: res.status, error: `answered ${res.status}`, retry: !FINAL_STATUSES.has(res.status) };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { ok: false, error: timedOut ? `no answer within ${timeoutMs} ms` : `unreachable${cause}`, retry: true };
  }
}

/**
 * Whether the gateway is up and takes the key, without queueing anything: an empty array passes
 * ar-io-node's admin check (401 `Unauthorized` before any other) and is then refused by the route's
 * own (400 `Must provide array of data item headers`), so 400 is the healthy answer.
 */
export async function probeGateway(gateway: BridgeGateway, timeoutMs: number, fetchFn: typeof fetch = fetch): Promise<boolean> {
  const outcome = await postToGateway(gateway, '[]', timeoutMs, fetchFn);
  return outcome.ok || outcome.status === 400;
}
