import type { ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import type { OpenBlob } from '../ports/blobStore.js';

/** bytes read at a time: as the blob store's streams read */
const CHUNK = 1024 * 1024;
/**
 * Buffers per response: one filled from the file while others are on their way to the socket.
 * This is all the memory a read takes, whatever the item's size or the client's pace.
 */
const BUFFERS = 3;

/**
 * Writes bytes `start` to `end` (inclusive) of an open blob as the body of `res`, through a few
 * buffers that are filled again once the socket has taken their bytes: no chunk is allocated per
 * read, where a stream allocates a fresh 1 MiB one each time, and the collector then runs a full
 * collection of the service's heap every few dozen MiB (it tracks such memory): a gigabyte read
 * cost more CPU in collections than in moving its bytes. Resolves when the body is sent; rejects
 * when a read fails or the client goes away first (the response is then destroyed, its body cut).
 * Closes the blob either way.
 */
export async function sendBlobRange(blob: OpenBlob, start: number, end: number, res: ServerResponse): Promise<void> {
  const free: Buffer[] = [];
  for (let i = 0; i < Math.min(BUFFERS, Math.ceil((end - start + 1) / CHUNK)); i++) free.push(Buffer.allocUnsafeSlow(CHUNK));
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  let gone = false;
  const onClose = () => {
    gone = true;
    wakeUp();
  };
  res.once('close', onClose);
  try {
    for (let position = start; position <= end;) {
      // a buffer is filled again only after the socket took its bytes (the write's callback)
      while (free.length === 0 && !gone) await new Promise<void>((resolve) => (wake = resolve));
      if (gone) throw new Error('the client went away before the body was sent');
      const buffer = free.pop()!;
      const read = await blob.read(buffer.subarray(0, Math.min(CHUNK, end + 1 - position)), position);
      // the blob was checked long enough when opened, and an open file keeps its bytes
      if (read === 0) throw new Error(`the blob ended at byte ${position}, before byte ${end}`);
      position += read;
      res.write(buffer.subarray(0, read), (error) => {
        // a failed write may still hold the buffer: it is not filled again (the response is closing)
        if (!error) free.push(buffer);
        wakeUp();
      });
    }
    if (gone) throw new Error('the client went away before the body was sent');
    // resolves once the last bytes are written, rejects if the client goes first
    await finished(res.end());
  } catch (error) {
    res.destroy();
    throw error;
  } finally {
    res.off('close', onClose);
    await blob.close();
  }
}
