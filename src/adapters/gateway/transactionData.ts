import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import { bestEffort } from '../../bestEffort.js';
import type { TransactionDataSource } from '../../ports/gateway.js';

export interface TransactionDataOptions {
  gatewayUrl: string;
  /** the first byte must come within this, and each next one within this of the one before */
  idleMs: number;
  fetch?: typeof fetch;
}

/**
 * A transaction's data read from `GET /<txId>` with a `Range` header, the one route that serves a
 * bundle transaction's raw bytes on both gateways this service talks to:
 * - an ar.io gateway (arweave.net is one) answers `GET /<id>` and `GET /raw/<id>` with `206` and
 *   `Content-Range` for a satisfiable range (ar-io/ar-io-node, src/routes/data/handlers.ts, parsed by
 *   `range-parser`); a bundle transaction (`Bundle-Format: binary`) is served as its bytes, never as
 *   a manifest;
 * - arlocal (textury/arlocal 1.1.66, src/routes/data.ts `dataRoute`) answers `GET /<id>` with `200`
 *   and the whole data, the `Range` header ignored, and has no `/raw/<id>` (its `/tx/<id>/data` is
 *   base64url and refuses data over 12 MB: src/routes/transaction.ts `txRawDataRoute`).
 * So a `206` must name exactly the range asked for, and a `200` is the whole data, of which the
 * bytes before `start` are skipped as they stream by and the read ends at `end`: never held.
 * (A redirect, as to an ar.io sandbox host, is followed by fetch, with the Range header.)
 */
export function createTransactionData(options: TransactionDataOptions): TransactionDataSource {
  const doFetch = options.fetch ?? fetch;
  const base = options.gatewayUrl.replace(/\/+$/, '');
  return {
    async read(txId, { start, end }, signal) {
      const idle = idleTimer(options.idleMs, signal);
      let response: Response;
      try {
        response = await doFetch(`${base}/${txId}`, { headers: { Range: `bytes=${start}-${end}` }, signal: idle.signal });
      } catch (error) {
        idle.stop();
        throw requestError(error, idle.timedOut());
      }
      const skip = rangeSkip(response, start, end);
      if (skip === undefined || !response.body) {
        idle.stop();
        if (response.body) await bestEffort(response.body.cancel(), 'an answer not read: its connection is let go');
        throw new GatewayRequestError(`GET /${txId} bytes ${start}-${end}: status ${response.status}`, { kind: 'status', status: response.status });
      }
      return slice(response.body, skip, end - start + 1, idle);
    },
  };
}

/** bytes to skip before the range: 0 for a `206` naming it, `start` for a `200`; undefined for anything else */
function rangeSkip(response: Response, start: number, end: number): number | undefined {
  if (response.status === 200) return start;
  if (response.status !== 206) return undefined;
  const named = /^bytes (\d+)-(\d+)\//.exec(response.headers.get('content-range') ?? '');
  return named && Number(named[1]) === start && Number(named[2]) === end ? 0 : undefined;
}

interface IdleTimer {
  signal: AbortSignal;
  /** the gateway is waited for again: the time starts again */
  touch(): void;
  /** the reader is waited for (a slow client): not the gateway's time */
  pause(): void;
  stop(): void;
  timedOut(): boolean;
}

/** aborts when nothing came for `ms`, or when `outer` aborts */
function idleTimer(ms: number, outer: AbortSignal): IdleTimer {
  const controller = new AbortController();
  let expired = false;
  const fire = () => {
    expired = true;
    controller.abort(new GatewayRequestError(`no byte from the gateway within ${ms} ms`, { kind: 'timeout' }));
  };
  let timer = setTimeout(fire, ms);
  const onOuter = () => controller.abort(outer.reason);
  outer.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    touch() {
      clearTimeout(timer);
      timer = setTimeout(fire, ms);
    },
    pause() {
      clearTimeout(timer);
    },
    stop() {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuter);
    },
    timedOut: () => expired,
  };
}

function requestError(error: unknown, timedOut: boolean): unknown {
  if (timedOut) return new GatewayRequestError('no answer from the gateway in time', { kind: 'timeout' });
  if (GatewayRequestError.is(error) || (error as Error | null)?.name === 'AbortError') return error;
  const code = (error as { cause?: { code?: string } } | null)?.cause?.code;
  return new GatewayRequestError(`gateway unreachable: ${String(error)}`, { kind: 'unreachable', ...(code !== undefined ? { code } : {}) });
}

/** the body's bytes from `skip` on, `length` of them; fails when the body ends short, and on an idle gap */
async function* slice(body: ReadableStream<Uint8Array>, skip: number, length: number, idle: IdleTimer): AsyncGenerator<Uint8Array> {
  let position = 0;
  const end = skip + length;
  try {
    for await (const chunk of body) {
      const from = Math.max(skip, position);
      const to = Math.min(end, position + chunk.byteLength);
      position += chunk.byteLength;
      if (from < to) {
        idle.pause();
        yield chunk.subarray(from - (position - chunk.byteLength), to - (position - chunk.byteLength));
      }
      idle.touch();
      if (position >= end) return;
    }
  } catch (error) {
    throw requestError(error, idle.timedOut());
  } finally {
    idle.stop();
    // locked while iterated (the loop's end released it): a cancel that fails had nothing left to stop
    await bestEffort(body.cancel(), 'the body is done with either way');
  }
  throw new GatewayRequestError(`the gateway's data ended at byte ${position}, before byte ${end}`, { kind: 'answer' });
}
