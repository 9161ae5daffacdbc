import type { TransactionStatus } from '../../ports/gateway.js';
import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import type { GatewayAnswer } from './request.js';

/**
 * The answer to `GET /tx/{id}/status`, read. Arweave nodes answer 202 "Pending" for a transaction
 * in the mempool, arlocal 200 "Pending"; both answer 404 for one they do not know, and 200 with
 * `{ block_height, block_indep_hash, number_of_confirmations }` once it is in a block.
 */
export function transactionStatusIn({ url, status, text }: GatewayAnswer): TransactionStatus {
  if (status === 404) return { status: 'not_found' };
  if (status === 202 || (status === 200 && text.trim() === 'Pending')) return { status: 'pending' };
  if (status !== 200) throw new GatewayRequestError(`GET ${url} answered HTTP ${status}`, { kind: 'status', status });
  const confirmed = confirmedIn(text);
  if (!confirmed) throw new GatewayRequestError(`GET ${url} answered without a block height and confirmations`, { kind: 'answer', status });
  return confirmed;
}

function confirmedIn(text: string): TransactionStatus | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const { block_height: blockHeight, number_of_confirmations: confirmations, block_indep_hash: blockHash } = json as Record<string, unknown>;
  if (!isCount(blockHeight) || !isCount(confirmations)) return undefined;
  return typeof blockHash === 'string' ? { status: 'confirmed', blockHeight, confirmations, blockHash } : { status: 'confirmed', blockHeight, confirmations };
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
