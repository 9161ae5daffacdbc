import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { BadGateway, GatewayTimeout, ServiceUnavailable } from '../domain/errors.js';
import type { TransactionDataSource } from '../ports/gateway.js';
import { GatewayRequestError } from '../ports/gatewayErrors.js';
import type { ReadStore } from '../ports/readStore.js';
import { collectionOf, retiredBytesProjection, type RetiredBytes } from '../../projections/index.js';

/** bytes `start` to `end` (inclusive) of a retired item's raw bytes */
export interface BlobSlice {
  start: number;
  end: number;
}

export interface RetiredReads {
  /** where the item `id`'s bytes are read from since they were retired; undefined: not retired */
  retiredOf(id: string): Promise<RetiredBytes | undefined>;
  /**
   * `slice` of the retired item's bytes, read from the gateway. Rejects with BadGateway or
   * GatewayTimeout when the gateway does not begin to serve them, ServiceUnavailable when
   * RETIRED_READS_MAX reads are under way; the stream fails (its reader must then cut its answer)
   * when the bytes stop coming or turn out not to be the accepted ones.
   */
  read(retired: RetiredBytes, slice: BlobSlice): Promise<Readable>;
}

/** a full service retries soon: a read of a few MiB takes seconds */
const BUSY_RETRY_AFTER_SECONDS = 2;

export function createRetiredReads(deps: { readStore: Pick<ReadStore, 'get'>; source: TransactionDataSource; maxReads: number }): RetiredReads {
  let reading = 0;
  return {
    async retiredOf(id) {
      return (await deps.readStore.get<RetiredBytes>(collectionOf(retiredBytesProjection), id))?.doc;
    },
    async read(retired, slice) {
      if (reading >= deps.maxReads) throw new ServiceUnavailable(`${reading} reads from the gateway under way`, BUSY_RETRY_AFTER_SECONDS);
      reading += 1;
      let released = false;
      const release = () => {
        if (!released) reading -= 1;
        released = true;
      };
      const stop = new AbortController();
      try {
        const first = retired.startOffsetInRootBundle;
        const whole = { start: first, end: first + retired.rawContentLength - 1 };
        const bytes = await deps.source.read(retired.bundleId, whole, stop.signal);
        const stream = Readable.from(verifiedSlice(bytes, retired, slice), { objectMode: false });
        stream.once('close', () => {
          stop.abort();
          release();
        });
        return stream;
      } catch (error) {
        release();
        throw asServiceError(error);
      }
    },
  };
}

function asServiceError(error: unknown): unknown {
  if (!GatewayRequestError.is(error)) return error;
  return error.kind === 'timeout' ? new GatewayTimeout(error.message) : new BadGateway(error.message);
}

/**
 * The bytes of `slice` out of the whole item's bytes as they come, every byte hashed: the slice's
 * last byte is held back until the whole item was read and its sha256 is the accepted one, so a
 * reader never gets a complete answer made of other bytes (the stream fails instead, and the
 * answer is cut one byte short). A range near the start still reads the item to its end: the digest
 * covers the whole item. Memory: the gateway's chunk on its way, and one byte.
 */
export async function* verifiedSlice(bytes: AsyncIterable<Uint8Array>, retired: Pick<RetiredBytes, 'rawContentLength' | 'sha256'>, slice: BlobSlice) {
  const hash = createHash('sha256');
  let position = 0;
  let held: Buffer | undefined;
  for await (const chunk of bytes) {
    const end = position + chunk.byteLength;
    if (end > retired.rawContentLength) throw new BadGateway(`the gateway sent more than the item's ${retired.rawContentLength} bytes`);
    hash.update(chunk);
    const from = Math.max(slice.start, position);
    const to = Math.min(slice.end + 1, end);
    if (from < to) {
      const piece = Buffer.from(chunk.buffer, chunk.byteOffset + from - position, to - from);
      if (to === slice.end + 1) {
        held = Buffer.from(piece.subarray(piece.length - 1));
        if (piece.length > 1) yield piece.subarray(0, piece.length - 1);
      } else yield piece;
    }
    position = end;
  }
  if (position !== retired.rawContentLength) throw new BadGateway(`the gateway sent ${position} of the item's ${retired.rawContentLength} bytes`);
  const digest = hash.digest('hex');
  if (digest !== retired.sha256) throw new BadGateway(`the gateway's bytes have sha256 ${digest}, the item was accepted with ${retired.sha256}`);
  if (held) yield held;
}
