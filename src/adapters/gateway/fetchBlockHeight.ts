import { heightIn } from './heightIn.js';
import { gatewayGetText, GatewayRequestError } from './getText.js';

/** One `GET {gatewayUrl}/info`, reduced to the block height, with every failure as a readable Error. */

export interface FetchBlockHeightOptions {
  gatewayUrl: string;
  timeoutMs: number;
  fetch: typeof fetch;
  /** aborts the request early (the source stopping) */
  signal?: AbortSignal;
  /** sees each answer with a valid height before the height is judged (gatewayProfile.ts tells arlocal by it) */
  observe?: (info: string) => void;
}

export async function fetchBlockHeight(options: FetchBlockHeightOptions): Promise<number> {
  const { url, text } = await gatewayGetText({ ...options, path: '/info', accept: 'application/json' });
  const height = heightIn(text);
  if (height === undefined) throw new GatewayRequestError(`GET ${url} answered without a valid "height"`);
  options.observe?.(text);
  return height;
}
