import { GatewayRequestError } from '../../ports/gatewayErrors.js';

/**
 * One HTTP request to the gateway, bounded in time, answering the status and the body as text
 * whatever the status: callers decide what a status means for them (a 404 is "not found" for a
 * status query and a failure elsewhere). Only the request itself failing throws: a
 * GatewayRequestError, or the fetch's AbortError when the caller's signal stopped it.
 */

export interface GatewayRequest {
  gatewayUrl: string;
  /** appended to the gateway URL, so a gateway behind a path prefix keeps its prefix */
  path: string;
  method: 'GET' | 'POST';
  accept: string;
  /** sent as `application/json` */
  json?: unknown;
  /** bounds the whole request, body included */
  timeoutMs: number;
  fetch: typeof fetch;
  /** aborts the request early (the caller stopping) */
  signal?: AbortSignal;
}

export interface GatewayAnswer {
  url: string;
  status: number;
  text: string;
}

export async function gatewayRequest(request: GatewayRequest): Promise<GatewayAnswer> {
  const { gatewayUrl, path, method, accept, json, timeoutMs, fetch, signal } = request;
  const url = `${gatewayUrl.replace(/\/+$/, '')}${path}`;
  const timeout = AbortSignal.timeout(timeoutMs);
  const headers: Record<string, string> = { accept };
  if (json !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(url, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    return { url, status: response.status, text: await response.text() };
  } catch (error) {
    // The caller stopping is not a gateway failure: it gets its own AbortError back, not something to retry.
    if (signal?.aborted) throw error;
    if (timeout.aborted) throw new GatewayRequestError(`${method} ${url} timed out after ${timeoutMs} ms`, { kind: 'timeout' });
    const code = codeOf(error);
    throw new GatewayRequestError(`${method} ${url} failed (${code ?? messageOf(error)})`, { kind: 'unreachable', code });
  }
}

/** undici reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } }).cause;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
