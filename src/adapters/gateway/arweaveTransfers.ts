import { createHash } from 'node:crypto';
import { parseAccountAddress } from '../../domain/account/ids.js';
import { canonicalArweaveId } from '../../domain/ids.js';
import type { Transfer, TransferSource } from '../../ports/transfers.js';
import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import { gatewayRequest } from './request.js';
import { transactionStatusIn } from './txStatus.js';

/** the tag turbo-sdk's `topUpWithTokens` adds to credit another account than the sender's */
const CREDIT_DESTINATION_TAG = 'Turbo-Credit-Destination-Address';

export interface ArweaveTransfersOptions {
  gatewayUrl: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * AR transfers as the gateway serves them: the header (`GET /tx/{id}`: owner, target, quantity,
 * tags) and where it stands (`GET /tx/{id}/status`). Arweave nodes answer 202 for a transaction still
 * in the mempool, without its header: its fields are then read from the gateway's GraphQL index,
 * which lists pending transactions too (turbo-sdk waits until it does before it claims).
 *
 * It is asked with the canonical id only: a gateway looks a transaction up by the bytes its id
 * decodes to, so each of the 4 spellings of one id would read as a transfer of its own (CONTRACT.md
 * section 10). An answer naming another id than the one asked is refused as a failed read.
 */
export function createArweaveTransfers({ gatewayUrl, timeoutMs, fetch: fetchFn = fetch }: ArweaveTransfersOptions): TransferSource {
  const base = { gatewayUrl, timeoutMs, fetch: fetchFn };
  return {
    async transfer(txId, { signal } = {}) {
      if (canonicalArweaveId(txId) !== txId) return undefined;
      const header = await gatewayRequest({ ...base, method: 'GET', path: `/tx/${txId}`, accept: 'application/json', signal });
      if (header.status === 404) return undefined;
      let fields: Fields | undefined;
      if (header.status === 200 && header.text.trim() !== 'Pending') fields = headerFields(txId, header.text);
      else if (header.status === 200 || header.status === 202) fields = await graphqlFields(txId, signal);
      else throw new GatewayRequestError(`GET ${header.url} answered HTTP ${header.status}`, { kind: 'status', status: header.status });
      if (!fields) return undefined;
      const status = transactionStatusIn(
        await gatewayRequest({ ...base, method: 'GET', path: `/tx/${txId}/status`, accept: 'application/json, text/plain', signal }),
      );
      return {
        txId,
        ...fields,
        failed: false,
        // a header the gateway serves with no status yet (not found there) is not in a block
        status:
          status.status === 'confirmed' ? { confirmed: true, blockHeight: status.blockHeight, confirmations: status.confirmations } : { confirmed: false },
      };
    },
  };

  async function graphqlFields(txId: string, signal: AbortSignal | undefined): Promise<Fields | undefined> {
    const query = `query { transactions(ids: ["${txId}"]) { edges { node { id owner { address } recipient quantity { winston } tags { name value } } } } }`;
    const answer = await gatewayRequest({ ...base, method: 'POST', path: '/graphql', accept: 'application/json', json: { query }, signal });
    if (answer.status !== 200) throw new GatewayRequestError(`POST ${answer.url} answered HTTP ${answer.status}`, { kind: 'status', status: answer.status });
    const node = (parseJson(answer.text) as GraphqlAnswer | undefined)?.data?.transactions?.edges?.[0]?.node;
    if (!node) return undefined;
    if (node.id !== txId)
      throw new GatewayRequestError(`POST ${answer.url} answered transaction ${String(node.id)} for ${txId}`, { kind: 'answer', status: 200 });
    const quantity = node.quantity?.winston;
    if (typeof node.owner?.address !== 'string' || typeof quantity !== 'string' || !/^\d+$/.test(quantity)) {
      throw new GatewayRequestError(`POST ${answer.url} answered transaction ${txId} without its owner and quantity`, { kind: 'answer', status: 200 });
    }
    const creditTo = (node.tags ?? []).find((t) => t.name === CREDIT_DESTINATION_TAG)?.value;
    return withCreditTo({ sender: node.owner.address, target: node.recipient || undefined, quantity: BigInt(quantity) }, creditTo);
  }

  function headerFields(txId: string, text: string): Fields {
    const tx = parseJson(text) as HeaderJson | undefined;
    if (tx?.id !== txId) {
      throw new GatewayRequestError(`GET ${gatewayUrl}/tx/${txId} answered transaction ${String(tx?.id)}`, { kind: 'answer', status: 200 });
    }
    const quantity = tx.quantity ?? '0';
    if (typeof tx?.owner !== 'string' || !/^\d+$/.test(quantity)) {
      throw new GatewayRequestError(`GET ${gatewayUrl}/tx/... answered a header without owner and quantity`, { kind: 'answer', status: 200 });
    }
    const sender = createHash('sha256').update(Buffer.from(tx.owner, 'base64url')).digest('base64url');
    // a format-2 header's tags are base64url names and values
    const tag = (tx.tags ?? []).find((t) => decode(t.name) === CREDIT_DESTINATION_TAG);
    return withCreditTo({ sender, target: tx.target || undefined, quantity: BigInt(quantity) }, tag ? decode(tag.value) : undefined);
  }
}

type Fields = Pick<Transfer, 'sender' | 'target' | 'quantity' | 'creditTo'>;
interface HeaderJson {
  id?: unknown;
  owner?: unknown;
  target?: string;
  quantity?: string;
  tags?: { name: string; value: string }[];
}
interface GraphqlAnswer {
  data?: {
    transactions?: {
      edges?: {
        node?: { id?: unknown; owner?: { address?: unknown }; recipient?: string; quantity?: { winston?: unknown }; tags?: { name: string; value: string }[] };
      }[];
    };
  };
}

/** a destination tag that is not an account address is ignored: the sender is credited */
function withCreditTo(fields: Omit<Fields, 'creditTo'>, raw: string | undefined): Fields {
  const creditTo = raw === undefined ? undefined : parseAccountAddress(raw);
  return creditTo !== undefined ? { ...fields, creditTo } : fields;
}

const decode = (b64url: string) => Buffer.from(b64url, 'base64url').toString('utf8');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
