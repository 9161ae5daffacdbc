import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import { gatewayRequest } from './request.js';

/** One GET to the gateway, its body as text, with every failure as a readable GatewayRequestError. */

// Kept importable from here: the block height and price fetchers import it from this file.
export { GatewayRequestError } from '../../ports/gatewayErrors.js';

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

export async function gatewayGetText(get: GatewayGet): Promise<{ url: string; text: string }> {
  const { url, status, text } = await gatewayRequest({ ...get, method: 'GET' });
  if (status < 200 || status > 299) throw new GatewayRequestError(`GET ${url} answered HTTP ${status}`, { kind: 'status', status });
  return { url, text };
}
