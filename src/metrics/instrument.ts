import type { ArweaveGateway } from '../ports/gateway.js';
import { GatewayRejected, GatewayRequestError } from '../ports/gatewayErrors.js';
import type { ReceiptSigner } from '../receipts/receiptSigner.js';
import { secondsSince, type Metrics, type UploadKind } from './metrics.js';

/** Decorators that measure a port without the port or its callers knowing. */

/** The kind label of a failed gateway call: the port's own failure kinds, `rejected`, else `other`. */
export function gatewayErrorKind(error: unknown): string {
  if (GatewayRequestError.is(error)) return error.kind;
  if (GatewayRejected.is(error)) return 'rejected';
  return 'other';
}

/** Counts every failed call by operation and kind; the caller stopping (an abort) is not a failure. */
export function instrumentGateway(gateway: ArweaveGateway, metrics: Pick<Metrics, 'gatewayError'>): ArweaveGateway {
  const counted =
    <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        if (!(error instanceof Error && error.name === 'AbortError')) metrics.gatewayError(operation, gatewayErrorKind(error));
        throw error;
      }
    };
  return {
    price: counted('price', gateway.price),
    anchor: counted('anchor', gateway.anchor),
    postTransaction: counted('postTransaction', gateway.postTransaction),
    postChunk: counted('postChunk', gateway.postChunk),
    transactionStatus: counted('transactionStatus', gateway.transactionStatus),
    currentHeight: counted('currentHeight', gateway.currentHeight),
    walletBalance: counted('walletBalance', gateway.walletBalance),
    ...(gateway.block ? { block: counted('block', gateway.block) } : {}),
  };
}

/**
 * A `fetch` that counts failures of `operation` (the block height refresh, which takes a fetch):
 * no answer (`unreachable`, or `timeout` when its time limit fired) or a status other than 2xx.
 */
export function countingFetch(operation: string, metrics: Pick<Metrics, 'gatewayError'>, fetchFn: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    let response: Response;
    try {
      response = await fetchFn(input, init);
    } catch (error) {
      // a fired time limit rejects with its TimeoutError; the caller stopping (AbortError) is no gateway failure
      const name = error instanceof Error ? error.name : '';
      if (name !== 'AbortError') metrics.gatewayError(operation, name === 'TimeoutError' ? 'timeout' : 'unreachable');
      throw error;
    }
    if (!response.ok) metrics.gatewayError(operation, 'status');
    return response;
  };
}

/** Times each signature, queueing for a worker included (what an upload waits). */
export function timedSigner(signer: ReceiptSigner, metrics: Pick<Metrics, 'signed'>): ReceiptSigner {
  return {
    async sign(unsigned) {
      const start = process.hrtime.bigint();
      const signature = await signer.sign(unsigned);
      metrics.signed(secondsSince(start));
      return signature;
    },
    close: () => signer.close(),
  };
}

/** Passes an upload's bytes through, counting them as they arrive (a long upload shows at once). */
export async function* countedBytes(
  source: AsyncIterable<Uint8Array>,
  kind: UploadKind,
  metrics: Pick<Metrics, 'uploadBytes'>,
): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const chunk of source) {
    metrics.uploadBytes(kind, chunk.byteLength);
    yield chunk;
  }
}
