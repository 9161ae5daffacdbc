/** One GET to the gateway, its body as text, with every failure as a readable GatewayRequestError. */

export class GatewayRequestError extends Error {
  override readonly name = 'GatewayRequestError';
}

export interface GatewayGet {
  gatewayUrl: string;
  /** appended to the gateway URL, so a gateway behind a path prefix keeps its prefix */
  path: string;
  accept: string;
  /** bounds the whole request, body included */
  timeoutMs: number;
  fetch: typeof fetch;
  /** aborts the request early (the caller stopping) */
  signal?: AbortSignal;
}

export async function gatewayGetText({ gatewayUrl, path, accept, timeoutMs, fetch, signal }: GatewayGet): Promise<{ url: string; text: string }> {
  const url = `${gatewayUrl.replace(/\/+$/, '')}${path}`;
  const timeout = AbortSignal.timeout(timeoutMs);
  let status: number;
  let text: string | undefined;
  try {
    const response = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, headers: { accept } });
    status = response.status;
    if (response.ok) text = await response.text();
    else await response.body?.cancel();
  } catch (error) {
    const reason = timeout.aborted ? `timed out after ${timeoutMs} ms` : `failed (${causeOf(error)})`;
    throw new GatewayRequestError(`GET ${url} ${reason}`);
  }
  if (text === undefined) throw new GatewayRequestError(`GET ${url} answered HTTP ${status}`);
  return { url, text };
}

/** undici reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
