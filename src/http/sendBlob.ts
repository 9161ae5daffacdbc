import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { OpenBlob } from '../ports/blobStore.js';
import type { PaceWatch } from './bodyRate.js';

/** the first buffer's size: a small payload, or a client not yet seen to take bytes, costs little memory */
const MIN_CHUNK = 64 * 1024;
/** the largest: as the blob store's streams read */
const MAX_CHUNK = 1024 * 1024;
/**
 * A buffer read ahead is let go (its bytes are read again later) when the client has not taken the
 * buffer before it within this: a reader that stops holds one buffer, not two.
 */
const STALL_MS = 1_000;

/**
 * The buffer size once `taken` bytes went to the socket: doubles from MIN_CHUNK each time the client
 * has taken 64 buffers of the size before. What the socket takes is not all the client's: the kernel
 * buffers a few MiB of a connection whose client reads nothing, and such a client must not be worth
 * large buffers; one that has taken 64 MiB is a real reader, and gets 1 MiB ones.
 */
export function chunkSizeFor(taken: number): number {
  let size = MIN_CHUNK;
  while (size < MAX_CHUNK && size * 64 <= taken) size *= 2;
  return size;
}

/**
 * Writes bytes `start` to `end` (inclusive) of an open blob as the body of `res`, which must be its
 * connection's current response. One buffer is on its way to the socket while the next is read from
 * the blob; each is filled again once the socket took its bytes (its write's callback): no chunk is
 * allocated per read, where a stream allocates a fresh 1 MiB one each time, and the collector then
 * runs a full collection of the service's heap every few dozen MiB (it tracks such memory).
 *
 * The memory a read holds follows what the client takes: buffers start at 64 KiB and grow to 1 MiB
 * as the client takes bytes (chunkSizeFor), and a client that stops taking them holds the one buffer
 * on its way only. `pace` holds the client to a minimum rate (bodyRate.ts): the time the service
 * spends reading its disk is not counted, and a client too slow has its response destroyed. (A
 * client that takes nothing at all is cut by the connection's idle timeout: listen.ts.)
 *
 * Resolves when the body is sent; rejects when a read fails or the client goes away first (the
 * response is then destroyed, its body cut). Closes the blob either way.
 */
export async function sendBlobRange(blob: OpenBlob, start: number, end: number, res: ServerResponse, pace?: PaceWatch): Promise<void> {
  /** bytes the socket took (their write's callback came) */
  let taken = 0;
  /** the buffer written and not yet taken */
  let inFlight: Buffer | undefined;
  /** the last buffer taken, to be filled again */
  let spare: Buffer | undefined;
  let gone = false;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const onClose = () => {
    gone = true;
    wakeUp();
  };
  res.once('close', onClose);
  /** until the buffer on its way is taken or the client is gone; false when `ms` passed first */
  const taking = async (ms?: number): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    while (inFlight && !gone) {
      const timedOut = await new Promise<boolean>((resolve) => {
        wake = () => resolve(false);
        if (ms !== undefined) timer = setTimeout(() => resolve(true), ms);
      });
      clearTimeout(timer);
      wake = undefined;
      if (timedOut) return false;
    }
    return true;
  };
  const unwatch = pace?.watch({ bytes: () => taken, awaited: () => inFlight !== undefined, cut: (error) => res.destroy(error) });
  try {
    for (let position = start; position <= end;) {
      if (gone) throw new Error('the client went away before the body was sent');
      const size = chunkSizeFor(taken);
      const buffer = spare?.length === size ? spare : Buffer.allocUnsafeSlow(size);
      spare = undefined;
      const read = await blob.read(buffer.subarray(0, Math.min(size, end + 1 - position)), position);
      // the blob was checked long enough when opened, and an open file keeps its bytes
      if (read === 0) throw new Error(`the blob ended at byte ${position}, before byte ${end}`);
      // one buffer on its way at a time; a client that takes none for a while does not hold this one too
      if (!(await taking(STALL_MS))) {
        await taking();
        continue;
      }
      if (gone) throw new Error('the client went away before the body was sent');
      inFlight = buffer;
      res.write(buffer.subarray(0, read), (error) => {
        inFlight = undefined;
        // a failed write may still hold the buffer: it is not filled again (the response is closing)
        if (!error) {
          taken += read;
          spare = buffer;
        }
        wakeUp();
      });
      position += read;
    }
    // resolves once the last bytes are written, rejects if the client goes first
    await finished(res.end());
  } catch (error) {
    res.destroy();
    throw error;
  } finally {
    unwatch?.();
    res.off('close', onClose);
    await blob.close();
  }
}

/**
 * Pipes a stream of bytes (a retired item's, from the gateway) as the body of `res`, with the client
 * held to `pace` as sendBlobRange holds it: the client is awaited while its socket has not taken what
 * was written (the time the source takes is the service's, not counted). Rejects when the stream
 * fails or the client goes away first.
 */
export async function sendStream(stream: Readable, res: ServerResponse, pace?: PaceWatch): Promise<void> {
  let written = 0;
  const count = (chunk: Buffer) => (written += chunk.length);
  // the request's own watchers (log, limits, pace) already listen for 'close': the pipeline's one
  // more is not a leak, and would warn as one past Node's default of 10
  res.setMaxListeners(Math.max(res.getMaxListeners(), 20));
  // piped first: a 'data' listener alone would start the flow
  const sent = pipeline(stream, res);
  stream.on('data', count);
  const unwatch = pace?.watch({ bytes: () => written, awaited: () => res.writableNeedDrain, cut: (error) => res.destroy(error) });
  try {
    await sent;
  } finally {
    unwatch?.();
    stream.off('data', count);
  }
}
