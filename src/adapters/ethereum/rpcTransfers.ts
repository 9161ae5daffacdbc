import type { Transfer, TransferSource } from '../../ports/transfers.js';
import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import { toChecksumAddress } from '../../verify/index.js';
import { canonicalEthereumTxHash } from '../../domain/ids.js';
import { gatewayRequest } from '../gateway/request.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x[0-9a-fA-F]+$/;

export interface EthereumTransfersOptions {
  /** a JSON-RPC endpoint (a node, a provider's URL, a local development chain) */
  rpcUrl: string;
  /** the chain it must be (`eth_chainId`): checked before the first transaction is read; undefined: not checked */
  chainId?: number;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * An RPC endpoint of another chain than configured: nothing it says is a transfer to the service. A
 * failed read for the claims (503, as a chain that cannot be read), a stop at start.
 */
export class WrongChain extends GatewayRequestError {
  constructor(
    readonly rpcUrl: string,
    readonly expected: number,
    readonly answered: string,
  ) {
    super(`${rpcUrl} is chain ${answered}, not chain ${expected} as configured`, { kind: 'answer', status: 200 });
  }
}

export interface EthereumTransfers extends TransferSource {
  /**
   * reads the endpoint's chain id and compares it with the configured one: resolves when it is that
   * chain (or none is configured); WrongChain when another; a GatewayRequestError when it cannot be read
   */
  checkChain(options?: { signal?: AbortSignal }): Promise<void>;
}

/**
 * Transfers of an EVM chain's native token (ETH on Ethereum and Base, POL on Polygon) through
 * JSON-RPC: the transaction (`eth_getTransactionByHash`: from, to, value, block), once mined its receipt (`eth_getTransactionReceipt`: status 1 moved the value, 0 moved nothing) and
 * the chain's head (`eth_blockNumber`). Confirmations count the transaction's own block: mined in the
 * head block, it has 1. It is asked with the canonical hash only (CONTRACT.md section 10: a node
 * takes any case, so each spelling would read as a transfer of its own), and an answer about
 * another hash than the one asked is refused as a failed read, never taken as the transfer.
 */
export function createEthereumTransfers({ rpcUrl, chainId, timeoutMs, fetch: fetchFn = fetch }: EthereumTransfersOptions): EthereumTransfers {
  let nextId = 1;
  /** set once the endpoint answered the configured chain id: a provider is one chain for good */
  let chainChecked = chainId === undefined;
  async function call(method: string, params: unknown[], signal: AbortSignal | undefined): Promise<unknown> {
    const answer = await gatewayRequest({
      gatewayUrl: rpcUrl,
      path: '',
      method: 'POST',
      accept: 'application/json',
      json: { jsonrpc: '2.0', id: nextId++, method, params },
      timeoutMs,
      fetch: fetchFn,
      signal,
    });
    const body = parseJson(answer.text) as { result?: unknown; error?: { message?: unknown } } | undefined;
    if (answer.status !== 200 || body === undefined || body.error !== undefined || !('result' in body)) {
      const why = body?.error !== undefined ? `error ${String(body.error.message)}` : `HTTP ${answer.status}`;
      throw new GatewayRequestError(
        `${method} at ${answer.url} answered ${why}`,
        answer.status === 200 ? { kind: 'answer', status: 200 } : { kind: 'status', status: answer.status },
      );
    }
    return body.result;
  }
  const fail = (what: string): never => {
    throw new GatewayRequestError(`${rpcUrl} answered ${what}`, { kind: 'answer', status: 200 });
  };

  async function checkChain({ signal }: { signal?: AbortSignal } = {}): Promise<void> {
    if (chainChecked || chainId === undefined) return;
    const answered = await call('eth_chainId', [], signal);
    if (typeof answered !== 'string' || !QUANTITY.test(answered)) return fail(`a chain id that is not a quantity: ${String(answered)}`);
    if (BigInt(answered) !== BigInt(chainId)) throw new WrongChain(rpcUrl, chainId, BigInt(answered).toString());
    chainChecked = true;
  }

  return {
    checkChain,
    async transfer(txId, { signal } = {}) {
      if (canonicalEthereumTxHash(txId) !== txId) return undefined;
      // another chain's endpoint (a URL mistyped, a provider's default network) could show a transfer
      // made there: nothing is read from it until it says it is the configured chain
      await checkChain({ ...(signal ? { signal } : {}) });
      const tx = (await call('eth_getTransactionByHash', [txId], signal)) as RpcTransaction | null;
      if (tx === null) return undefined;
      if (typeof tx.hash !== 'string' || canonicalEthereumTxHash(tx.hash) !== txId) return fail(`transaction ${String(tx.hash)} for ${txId}`);
      if (typeof tx.from !== 'string' || !ADDRESS.test(tx.from) || typeof tx.value !== 'string' || !QUANTITY.test(tx.value)) {
        return fail(`transaction ${txId} without from and value`);
      }
      const common = {
        txId,
        sender: toChecksumAddress(tx.from),
        target: typeof tx.to === 'string' && ADDRESS.test(tx.to) ? toChecksumAddress(tx.to) : undefined,
        quantity: BigInt(tx.value),
      };
      if (typeof tx.blockNumber !== 'string') return { ...common, failed: false, status: { confirmed: false } } satisfies Transfer;
      if (!QUANTITY.test(tx.blockNumber)) return fail(`transaction ${txId} with block number ${tx.blockNumber}`);
      const blockHeight = Number(BigInt(tx.blockNumber));
      const receipt = (await call('eth_getTransactionReceipt', [txId], signal)) as { status?: unknown; transactionHash?: unknown } | null;
      // mined, yet no receipt (a node that has not indexed it yet): not confirmed
      if (receipt === null) return { ...common, failed: false, status: { confirmed: false } } satisfies Transfer;
      if (typeof receipt.transactionHash !== 'string' || canonicalEthereumTxHash(receipt.transactionHash) !== txId) {
        return fail(`the receipt of ${String(receipt.transactionHash)} for ${txId}`);
      }
      const head = await call('eth_blockNumber', [], signal);
      if (typeof head !== 'string' || !QUANTITY.test(head)) return fail('a block number that is not a quantity');
      const confirmations = Math.max(0, Number(BigInt(head)) - blockHeight + 1);
      return { ...common, failed: receipt.status !== '0x1', status: { confirmed: true, blockHeight, confirmations } } satisfies Transfer;
    },
  };
}

interface RpcTransaction {
  hash?: unknown;
  from?: unknown;
  to?: unknown;
  value?: unknown;
  blockNumber?: unknown;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
