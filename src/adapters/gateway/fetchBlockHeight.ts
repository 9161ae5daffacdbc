import { heightIn } from './heightIn.js';

/** One `GET {gatewayUrl}/info`, reduced to the block height, with every failure as a readable Error. */

export class GatewayRequestError extends Error {
  override readonly name = 'GatewayRequestError';
}

export interface FetchBlockHeightOptions {
  gatewayUrl: string;
  timeoutMs: number;
  fetch: typeof fetch;
  /** aborts the request early (the source stopping) */
  signal?: AbortSignal;
}

export async function fetchBlockHeight({ gatewayUrl, timeoutMs, fetch, signal }: FetchBlockHeightOptions): Promise<number> {
  // Appended, not resolved: a gateway behind a path prefix keeps its prefix.
  const url = `${gatewayUrl.replace(/\/+$/, '')}/info`;
  const timeout = AbortSignal.timeout(timeoutMs);
  let status: number;
  let text: string | undefined;
  try {
    const response = await fetch(url, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      headers: { accept: 'application/json' },
    });
    status = response.status;
    if (response.ok) text = await response.text();
    else await response.body?.cancel();
  } catch (error) {
    const reason = timeout.aborted ? `timed out after ${timeoutMs} ms` : `failed (${describe(error)})`;
    throw new GatewayRequestError(`GET ${url} ${reason}`);
  }
  if (text === undefined) throw new GatewayRequestError(`GET ${url} answered HTTP ${status}`);
  const height = heightIn(text);
  if (height === undefined) throw new GatewayRequestError(`GET ${url} answered without a valid "height"`);
  return height;
}

/** undici reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
