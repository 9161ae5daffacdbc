import { GatewayRequestError } from '../gateway/fetchBlockHeight.js';

/** One `GET {gatewayUrl}/price/{bytes}`, reduced to winston, with every failure as a readable Error. */

export interface FetchPriceOptions {
  gatewayUrl: string;
  bytes: number;
  /** bounds the whole request, body included */
  timeoutMs: number;
  fetch: typeof fetch;
}

export async function fetchPrice({ gatewayUrl, bytes, timeoutMs, fetch }: FetchPriceOptions): Promise<bigint> {
  // Appended, not resolved: a gateway behind a path prefix keeps its prefix.
  const url = `${gatewayUrl.replace(/\/+$/, '')}/price/${bytes}`;
  const timeout = AbortSignal.timeout(timeoutMs);
  let status: number;
  let text: string | undefined;
  try {
    const response = await fetch(url, { signal: timeout, headers: { accept: 'text/plain' } });
    status = response.status;
    if (response.ok) text = await response.text();
    else await response.body?.cancel();
  } catch (error) {
    const reason = timeout.aborted ? `timed out after ${timeoutMs} ms` : `failed (${causeOf(error)})`;
    throw new GatewayRequestError(`GET ${url} ${reason}`);
  }
  if (text === undefined) throw new GatewayRequestError(`GET ${url} answered HTTP ${status}`);
  // The gateway answers a bare decimal winston amount; anything else (JSON, a sign, a fraction) is
  // not a price this service can charge.
  const digits = text.trim();
  if (!/^\d+$/.test(digits)) throw new GatewayRequestError(`GET ${url} answered without a price in winston`);
  return BigInt(digits);
}

/** undici reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
