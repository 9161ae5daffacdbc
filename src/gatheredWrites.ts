import type { BlobWriter } from './ports/blobStore.js';
import { bestEffort } from './bestEffort.js';

/** what is gathered before it is handed to the writer at once */
export const GATHER_BYTES = 1024 * 1024;

export interface GatheredWrites {
  /** takes `chunk` (held, not copied: the caller must not reuse its buffer); resolves once there is room for more */
  write(chunk: Uint8Array): Promise<void>;
  /** hands over what is gathered; resolves once every byte is written */
  end(): Promise<void>;
  /** after a failure: once the writes handed over ended (their outcome is not reported) */
  release(): Promise<void>;
}

/**
 * A stream's pieces (a request's body comes in pieces of up to 64 KiB) gathered until `batchBytes`,
 * then handed to the writer together, so that a file writer writes them with one pwritev: a GiB is
 * about a thousand writes rather than sixteen thousand, each of which cost a round trip to libuv's
 * thread (a futex wake there, an eventfd write and an epoll wake back) besides the syscall. The
 * pieces are the source's own buffers, held until written: no copy, no buffer of ours. At most one
 * batch is being written while the next is gathered, so what is held stays under two batches.
 */
export function gatheredWrites(writer: BlobWriter, batchBytes = GATHER_BYTES): GatheredWrites {
  let gathered: Uint8Array[] = [];
  let gatheredBytes = 0;
  let writing: Promise<unknown> | undefined;

  const handOver = () => {
    const batch = gathered;
    gathered = [];
    gatheredBytes = 0;
    // given in one burst: the writer takes them as one write
    writing = Promise.all(batch.map((chunk) => writer.write(chunk)));
    writing.catch(() => {}); // handled: awaited by the next batch, end or release
  };

  return {
    async write(chunk) {
      if (chunk.byteLength === 0) return;
      gathered.push(chunk);
      gatheredBytes += chunk.byteLength;
      if (gatheredBytes < batchBytes) return;
      await writing;
      handOver();
    },
    async end() {
      await writing;
      if (gatheredBytes > 0) handOver();
      await writing;
    },
    async release() {
      gathered = [];
      gatheredBytes = 0;
      if (writing) await bestEffort(writing, 'the first failure is the one reported; the write ends before the abort');
    },
  };
}
