import { GatewayRejected, GatewayRequestError } from '../../ports/gatewayErrors.js';
import type { GatewayAnswer } from './request.js';

/**
 * What the answers to `POST /tx` and `POST /chunk` mean: done, refused for good, or "try again".
 * 408 and 429 are the gateway asking for patience, 5xx its own trouble; any other 4xx is a
 * refusal of what was sent.
 */

export const isSuccess = (status: number): boolean => status >= 200 && status <= 299;

export const isRefusal = (status: number): boolean => status >= 400 && status <= 499 && status !== 408 && status !== 429;

/**
 * The chunk errors arweave-js (`transaction-uploader`) gives up on; it retries every other one,
 * such as `data_root_not_found` (the chunk came before the node had the header) or a full disk pool.
 */
const FATAL_CHUNK_ERRORS = new Set([
  'invalid_json',
  'chunk_too_big',
  'data_path_too_big',
  'offset_too_big',
  'data_size_too_big',
  'chunk_proof_ratio_not_attractive',
  'invalid_proof',
]);

/** A chunk refused for good: an error arweave-js treats as fatal, or a body too large for the gateway. */
export function isFatalChunkAnswer({ status, text }: GatewayAnswer): boolean {
  if (status === 413) return true;
  return isRefusal(status) && FATAL_CHUNK_ERRORS.has(errorIn(text) ?? '');
}

/** The retryable error for an answer that is neither a success nor a refusal. */
export const unexpectedStatus = ({ url, status, text }: GatewayAnswer, method = 'POST'): GatewayRequestError =>
  new GatewayRequestError(`${method} ${url} answered HTTP ${status}${brief(text)}`, { kind: 'status', status });

export const rejected = ({ url, status, text }: GatewayAnswer, what: string): GatewayRejected =>
  new GatewayRejected(`POST ${url} refused ${what}: HTTP ${status}${brief(text)}`, status, text, isFundsRefusal({ status, text }) ? 'funds' : 'transaction');

/**
 * The answers that say the paying wallet cannot pay the reward: arlocal's 410 `You don't have
 * enough tokens`, an Arweave node's 400 `Waiting transactions exceed balance for wallet.` (its
 * `overspend`), and the same words from gateways in front of nodes.
 */
const FUNDS_REFUSAL = /enough (?:tokens|funds)|exceed balance|overspend|insufficient (?:funds|balance)/i;

export function isFundsRefusal({ status, text }: Pick<GatewayAnswer, 'status' | 'text'>): boolean {
  return status === 410 || (isRefusal(status) && FUNDS_REFUSAL.test(text));
}

/** `{"error":"invalid_proof"}`, the form of an Arweave node's chunk errors */
function errorIn(text: string): string | undefined {
  try {
    const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
    return typeof error === 'string' ? error : undefined;
  } catch {
    return undefined;
  }
}

/** the start of a body, for a message: error bodies are short, an HTML error page is not */
function brief(text: string): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  if (flat === '') return '';
  return `: ${flat.length > 200 ? `${flat.slice(0, 200)}...` : flat}`;
}
