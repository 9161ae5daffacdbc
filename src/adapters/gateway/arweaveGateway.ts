import type { ArweaveGateway, ChunkUpload, GatewayCallOptions, TransactionHeader } from '../../ports/gateway.js';
import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import { fetchBlockHeight } from './fetchBlockHeight.js';
import { gatewayGetText } from './getText.js';
import { createHeightGuard, type HeightGuard } from './heightGuard.js';
import { isFatalChunkAnswer, isRefusal, isSuccess, rejected, unexpectedStatus } from './postAnswers.js';
import { gatewayRequest } from './request.js';
import { transactionStatusIn } from './txStatus.js';

export interface ArweaveGatewayOptions {
  /** origin (optionally with a path prefix) of the Arweave gateway */
  gatewayUrl: string;
  /** bounds each call, body included; the longest is a 256 KiB chunk going up */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * what heights are believed: a height it refuses fails the call (retryable) rather than drop a
   * bundle by it or sign it as an anchor's height. Shared with the block height source, which
   * restores the saved height into it (default: its own, default settings).
   */
  heights?: HeightGuard;
  /** sees each `GET /info` answer before its height is judged (gatewayProfile.ts) */
  observeInfo?: (info: string) => void;
}

const TX_ID = /^[A-Za-z0-9_-]{43}$/;
/** a wallet address: the base64url SHA-256 of its owner */
const ADDRESS = /^[A-Za-z0-9_-]{43}$/;
/** `GET /tx_anchor` answers a block hash (48 bytes: 64 characters of base64url; arlocal makes up 64 alphanumerics) or a tx id */
const ANCHOR = /^(?:[A-Za-z0-9_-]{43}|[A-Za-z0-9_-]{64})$/;

/** a block's indep_hash: 48 bytes (64 characters of base64url); arlocal makes up 64 alphanumerics */
const BLOCK_HASH = /^[A-Za-z0-9_-]{43,64}$/;

function blockIn(text: string): { timestamp: number; previous: string } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const { timestamp, previous_block: previous } = json as Record<string, unknown>;
  return Number.isSafeInteger(timestamp) && typeof previous === 'string' ? { timestamp: timestamp as number, previous } : undefined;
}

/** The Arweave HTTP API as the bundler uses it; see the port for what each call means. */
export function createArweaveGateway({
  gatewayUrl,
  timeoutMs = 30_000,
  fetch: fetchFn = fetch,
  heights = createHeightGuard(),
  observeInfo,
}: ArweaveGatewayOptions): ArweaveGateway {
  const base = { gatewayUrl, timeoutMs, fetch: fetchFn };
  const post = (path: string, json: unknown, signal: AbortSignal | undefined) =>
    gatewayRequest({ ...base, method: 'POST', path, accept: 'application/json, text/plain', json, signal });

  async function transactionStatus(id: string, { signal }: GatewayCallOptions = {}) {
    if (!TX_ID.test(id)) throw new RangeError(`${JSON.stringify(id)} is not a transaction id`);
    return transactionStatusIn(await gatewayRequest({ ...base, method: 'GET', path: `/tx/${id}/status`, accept: 'application/json, text/plain', signal }));
  }

  return {
    async price(bytes, { signal } = {}) {
      if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`cannot price ${bytes} bytes`);
      const { url, text } = await gatewayGetText({ ...base, path: `/price/${bytes}`, accept: 'text/plain', signal });
      const digits = text.trim();
      if (!/^\d+$/.test(digits)) throw new GatewayRequestError(`GET ${url} answered without a price in winston`, { kind: 'answer', status: 200 });
      return BigInt(digits);
    },

    async anchor({ signal } = {}) {
      const { url, text } = await gatewayGetText({ ...base, path: '/tx_anchor', accept: 'text/plain', signal });
      const anchor = text.trim();
      if (!ANCHOR.test(anchor)) throw new GatewayRequestError(`GET ${url} answered without a block hash or tx id`, { kind: 'answer', status: 200 });
      return anchor;
    },

    async postTransaction(tx: TransactionHeader, { signal } = {}) {
      if (!TX_ID.test(tx.id)) throw new RangeError(`${JSON.stringify(tx.id)} is not a transaction id`);
      const answer = await post('/tx', tx, signal);
      // 208 "Transaction already processed." is a success like 200.
      if (isSuccess(answer.status)) return;
      if (!isRefusal(answer.status)) throw unexpectedStatus(answer);
      // A gateway that already has the transaction may refuse it again rather than answer 208
      // (arlocal answers 404: its insert hits the primary key). The post is done either way, and a
      // retry after a lost answer must not turn into a failure.
      if ((await transactionStatus(tx.id, { signal })).status !== 'not_found') return;
      throw rejected(answer, `transaction ${tx.id}`);
    },

    async postChunk(chunk: ChunkUpload, { signal } = {}) {
      const answer = await post('/chunk', chunk, signal);
      if (isSuccess(answer.status)) return;
      if (isFatalChunkAnswer(answer)) throw rejected(answer, `the chunk ending at ${chunk.offset} of ${chunk.data_root}`);
      throw unexpectedStatus(answer);
    },

    transactionStatus,

    async block(indepHash, { signal } = {}) {
      if (!BLOCK_HASH.test(indepHash)) throw new RangeError(`${JSON.stringify(indepHash)} is not a block hash`);
      const { url, text } = await gatewayGetText({ ...base, path: `/block/hash/${indepHash}`, accept: 'application/json', signal });
      const block = blockIn(text);
      if (!block) throw new GatewayRequestError(`GET ${url} answered without a block's timestamp and previous block`, { kind: 'answer', status: 200 });
      return block;
    },

    async walletBalance(address, { signal } = {}) {
      if (!ADDRESS.test(address)) throw new RangeError(`${JSON.stringify(address)} is not a wallet address`);
      const { url, text } = await gatewayGetText({ ...base, path: `/wallet/${address}/balance`, accept: 'text/plain, application/json', signal });
      // a decimal winston string (arlocal answers a JSON number, which is the same digits up to 1e21)
      const digits = text.trim();
      if (!/^\d+$/.test(digits)) throw new GatewayRequestError(`GET ${url} answered without a balance in winston`, { kind: 'answer', status: 200 });
      return BigInt(digits);
    },

    async currentHeight({ signal } = {}) {
      const answered = await fetchBlockHeight({ ...base, signal, observe: observeInfo });
      const verdict = heights.admit(answered);
      if (!verdict.accepted) {
        throw new GatewayRequestError(`GET ${gatewayUrl.replace(/\/+$/, '')}/info answered block height ${answered}, refused: ${verdict.reason}`, {
          kind: 'answer',
          status: 200,
        });
      }
      return verdict.height;
    },
  };
}
