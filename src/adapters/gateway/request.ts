import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import { readBounded } from './readBounded.js';

/**
 * One HTTP request to the gateway, bounded in time and in size, answering the status and the body
 * as text whatever the status: callers decide what a status means for them (a 404 is "not found"
 * for a status query and a failure elsewhere). Only the request itself failing throws: a
 * GatewayRequestError, or the fetch's AbortError when the caller's signal stopped it.
 */

/**
 * The largest answer read from a gateway. Every answer the service asks for is small (`GET /info`
 * about 1 KiB, a price, an anchor, a status, `OK`), and an error page of a proxy in front of a
 * gateway a few KiB: 1 MiB leaves room for all of them, while a gateway streaming without end is
 * cut there instead of filling the memory until the time limit.
 */
export const MAX_GATEWAY_ANSWER_BYTES = 1024 * 1024;

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
  /** bounds the answer's body; default MAX_GATEWAY_ANSWER_BYTES */
  maxAnswerBytes?: number;
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
  const { gatewayUrl, path, method, accept, json, timeoutMs, fetch, signal, maxAnswerBytes = MAX_GATEWAY_ANSWER_BYTES } = request;
  const url = `${gatewayUrl.replace(/\/+$/, '')}${path}`;
  const timeout = AbortSignal.timeout(timeoutMs);
  const headers: Record<string, string> = { accept };
  if (json !== undefined) headers['content-type'] = 'application/json';
  let answer: { status: number; text: string | undefined };
  try {
    const response = await fetch(url, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    answer = { status: response.status, text: await readBounded(response, maxAnswerBytes) };
  } catch (error) {
    // The caller stopping is not a gateway failure: it gets its own AbortError back, not something to retry.
    if (signal?.aborted) throw error;
    if (timeout.aborted) throw new GatewayRequestError(`${method} ${url} timed out after ${timeoutMs} ms`, { kind: 'timeout' });
    const code = codeOf(error);
    throw new GatewayRequestError(`${method} ${url} failed (${code ?? messageOf(error)})`, { kind: 'unreachable', code });
  }
  if (answer.text === undefined) {
    throw new GatewayRequestError(`${method} ${url} answered more than ${maxAnswerBytes} bytes: cut`, { kind: 'answer', status: answer.status });
  }
  return { url, status: answer.status, text: answer.text };
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
