import { gatewayGetText, GatewayRequestError } from '../gateway/getText.js';

/** One `GET {gatewayUrl}/price/{bytes}`, reduced to winston, with every failure as a readable Error. */

export interface FetchPriceOptions {
  gatewayUrl: string;
  bytes: number;
  /** bounds the whole request, body included */
  timeoutMs: number;
  fetch: typeof fetch;
}

export async function fetchPrice({ bytes, ...options }: FetchPriceOptions): Promise<bigint> {
  const { url, text } = await gatewayGetText({ ...options, path: `/price/${bytes}`, accept: 'text/plain' });
  // The gateway answers a bare decimal winston amount; anything else (JSON, a sign, a fraction) is
  // not a price this service can charge.
  const digits = text.trim();
  if (!/^\d+$/.test(digits)) throw new GatewayRequestError(`GET ${url} answered without a price in winston`);
  return BigInt(digits);
}
