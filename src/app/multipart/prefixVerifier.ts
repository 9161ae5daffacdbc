import { BufferPool } from '../../bufferPool.js';
import { inlineHasher, type BlobHasher } from '../../crypto/blobHasher.js';
import { DataItemTooLarge, InvalidDataItem } from '../../domain/errors.js';
import { legacyUploadDataKey } from '../../domain/upload/ids.js';
import type { Chunk } from '../../domain/upload/state.js';
import type { BlobStore } from '../../ports/blobStore.js';
import { createDataItemVerifier, type DataItemVerifier, type VerifierOptions } from '../../verify/index.js';
import type { ItemVerification, VerifiedBytes } from '../acceptance/receiveDataItem.js';

/**
 * Verifies a multi-part upload's chunks while the upload is still coming in, so that its finalize
 * has only the chunks after the longest run from byte 0 left to read (none, for a client that sends
 * its chunks in order): each chunk recorded by this process is read back from its blob (just written:
 * from the page cache) into the item's verification as soon as every byte before it has gone in.
 *
 * What is verified is exactly what finalize would read: a chunk's blob is never written again (a
 * re-sent chunk gets a blob of its own, under a new key), and finalize takes the work done only when
 * the chunks that went in are, key by key, the first of the upload's tiling; else (a chunk that went in
 * was replaced since, a chunk recorded by another process, a restart, an upload no longer followed)
 * it verifies what is not covered, or every chunk, as before. A failure while following (bytes that
 * are no item, a blob gone) only stops the following: finalize's own pass meets the same failure and
 * answers it as it always did.
 *
 * Threads: this thread reads and parses the item's header (its first bytes); the payload's SHA-384
 * and the blob's SHA-256 are computed on a hashing worker, which reads a chunk's bytes from its file
 * itself where the store gives a file descriptor (OpenBlob.fd): a chunk read back costs this thread
 * a message per MiB, not a copy and two hashes per byte, and the request's thread is left to the
 * chunks still coming in. A blob with no descriptor (a small one kept in a row) is read here and its
 * bytes copied to the worker.
 *
 * Memory: at most `maxUploads` uploads are followed (the least recently fed one is dropped for a new
 * one), each holding a verifier (a few hashes' state and the header being parsed) and a blob digest
 * session (at most the hasher's pieces per session). Chunks waiting for the bytes before them are
 * remembered by key, never held.
 */
export interface PrefixVerifier {
  /** a chunk of `uploadId` was recorded (its blob durable, never written again) */
  recorded(uploadId: string, chunk: Chunk): void;
  /**
   * at finalize: stops following the upload and, when what went in is the start of `ordered`, feeds
   * the rest and returns the item's verification; else undefined (nothing usable was done)
   */
  take(uploadId: string, ordered: readonly Chunk[]): Promise<VerifiedBytes | undefined>;
  /** the upload ended without a finalize that took it (expired): drops what was done */
  forget(uploadId: string): void;
  /** uploads followed now */
  following(): number;
}

export interface PrefixVerifierOptions {
  /** a store that reads at a position into the caller's buffers */
  blobStore: { open: NonNullable<BlobStore['open']> };
  /** the size limit and the tag rules of this service */
  rules: VerifierOptions;
  hasher?: BlobHasher;
  /** uploads followed at once */
  maxUploads: number;
}

interface Followed {
  verification: SplitVerification | undefined;
  /** the chunks that went in (or are going in), in order */
  fed: Chunk[];
  /** where the next chunk to go in starts */
  next: number;
  /** recorded chunks after `next`, by offset */
  waiting: Map<number, Chunk>;
  /** the worker's reading of the chunks given last, oldest first (see feedChunk) */
  reads: Promise<void>[];
  /** the feeding under way (never rejects) */
  feeding: Promise<void>;
  /** a chunk went in out of place, or feeding failed: nothing done is usable */
  broken: boolean;
  /** taken by a finalize or dropped: feed nothing more */
  stopped: boolean;
}

/** what a chunk is read back in on this thread */
const READ_BYTES = 1024 * 1024;
/** what is read at a time while the header is not parsed yet: the header is a few KiB, the rest is the worker's to read */
const HEADER_READ_BYTES = 64 * 1024;
/** chunks the worker may still be reading when the next one is opened */
const CHUNKS_READ_AHEAD = 2;
const SPARE_BUFFERS = 2;

export function createPrefixVerifier({ blobStore, rules, hasher, maxUploads }: PrefixVerifierOptions): PrefixVerifier {
  // insertion order is feeding order: an upload is moved to the end each time a chunk of it is recorded
  const uploads = new Map<string, Followed>();

  // buffers the chunks are read into, kept for the next chunk (a stream's fresh 1 MiB pieces would
  // cost the collector a full pass every few dozen MiB); one per upload being fed at the moment, a
  // few kept between
  const buffers = new BufferPool(READ_BYTES, SPARE_BUFFERS);

  /**
   * Gives a chunk's bytes to the upload's verification: read here until the header is parsed (and
   * all of a blob the worker cannot read), the rest posted to the worker to read. Resolves once they
   * are given; the worker's reading is in `followed.reads` (the blob closes when it is done), so the
   * next chunk is opened while the worker still reads this one.
   */
  const feedChunk = async (followed: Followed, chunk: Chunk) => {
    const verification = (followed.verification ??= startSplitVerification(rules, hasher));
    const blob = await blobStore.open(chunk.blobKey);
    const buffer = buffers.take();
    let reading: Promise<void> | undefined;
    try {
      let at = 0;
      for (let fd = blob.fd; at < chunk.length && (fd === undefined || !verification.headerParsed);) {
        const most = Math.min(chunk.length - at, verification.headerParsed ? buffer.length : HEADER_READ_BYTES);
        const read = await blob.read(buffer.subarray(0, most), at);
        if (read === 0) throw new Error(`chunk blob ${chunk.blobKey} gave ${at} of ${chunk.length} bytes`);
        // the verifier and the blob digest copy what they keep: the buffer is refilled next
        await verification.write(buffer.subarray(0, read));
        at += read;
      }
      if (at < chunk.length) reading = verification.writeFile(blob.fd!, at, chunk.length - at);
    } finally {
      buffers.give(buffer);
      if (!reading) await blob.close();
    }
    if (!reading) return;
    const read = reading.finally(() => blob.close());
    // awaited below or in settle; handled now, so that a failure while it waits is not unhandled
    read.catch(() => undefined);
    followed.reads.push(read);
    while (followed.reads.length > CHUNKS_READ_AHEAD) await followed.reads.shift();
  };

  /** every chunk given is read (their blobs closed); throws what the first failed reading threw */
  const settle = async (followed: Followed) => {
    let failure: unknown;
    for (let read = followed.reads.shift(); read; read = followed.reads.shift()) await read.catch((error: unknown) => (failure ??= error));
    if (failure !== undefined) throw failure;
  };

  /** frees the blob digest of an upload whose work nobody will take */
  const release = (followed: Followed) => {
    followed.verification?.abort();
    followed.verification = undefined;
  };

  const pump = (followed: Followed) => {
    followed.feeding = followed.feeding.then(async () => {
      try {
        for (let chunk = followed.waiting.get(followed.next); chunk && !followed.stopped && !followed.broken; chunk = followed.waiting.get(followed.next)) {
          followed.waiting.delete(chunk.offset);
          followed.fed.push(chunk);
          followed.next = chunk.offset + chunk.length;
          await feedChunk(followed, chunk);
        }
      } catch {
        followed.broken = true;
      }
      try {
        await settle(followed);
      } catch {
        followed.broken = true;
      }
      if (followed.broken) release(followed);
    });
  };

  const drop = (uploadId: string) => {
    const followed = uploads.get(uploadId);
    if (!followed) return;
    uploads.delete(uploadId);
    followed.stopped = true;
    followed.broken = true;
    // after the chunk going in now, if any
    void followed.feeding.then(() => release(followed));
  };

  return {
    recorded(uploadId, chunk) {
      // the one blob of an earlier version's upload is written again by later chunks: never followed
      if (maxUploads <= 0 || chunk.blobKey === legacyUploadDataKey(uploadId)) return drop(uploadId);
      let followed = uploads.get(uploadId);
      if (followed) uploads.delete(uploadId);
      else {
        while (uploads.size >= maxUploads) drop(uploads.keys().next().value!);
        followed = { verification: undefined, fed: [], next: 0, waiting: new Map(), reads: [], feeding: Promise.resolve(), broken: false, stopped: false };
      }
      uploads.set(uploadId, followed);
      if (followed.broken) return;
      // a chunk where bytes already went in replaces (or overlaps) one of them
      if (chunk.offset < followed.next) {
        followed.broken = true;
        return pump(followed);
      }
      followed.waiting.set(chunk.offset, chunk);
      if (chunk.offset === followed.next) pump(followed);
    },

    async take(uploadId, ordered) {
      const followed = uploads.get(uploadId);
      if (!followed) return undefined;
      // out of the map, nothing more is recorded for it: what is waiting goes in (finalize would read it anyway)
      uploads.delete(uploadId);
      await followed.feeding;
      followed.stopped = true;
      const { verification, fed } = followed;
      const usable = !followed.broken && verification !== undefined && fed.length <= ordered.length && fed.every((chunk, i) => sameChunk(chunk, ordered[i]!));
      if (!usable) {
        followed.broken = true;
        release(followed);
        return undefined;
      }
      try {
        try {
          for (const chunk of ordered.slice(fed.length)) await feedChunk(followed, chunk);
        } finally {
          await settle(followed);
        }
        return await verification.end();
      } catch (error) {
        verification.abort();
        // the item's own fault is the finalize's answer; anything else (a hashing worker that died
        // meanwhile) leaves the finalize to read every chunk itself
        if (error instanceof InvalidDataItem || error instanceof DataItemTooLarge) throw error;
        return undefined;
      }
    },

    forget: drop,
    following: () => uploads.size,
  };
}

const sameChunk = (a: Chunk, b: Chunk) => a.blobKey === b.blobKey && a.offset === b.offset && a.length === b.length;

/** an item's verification whose payload is hashed on the hasher's worker, given as bytes or as ranges of a file */
interface SplitVerification extends ItemVerification {
  /** the header's bytes are all in: from here on bytes may be given as file ranges */
  readonly headerParsed: boolean;
  /** the next `length` bytes are those of the open file `fd` at `position` (kept open until this settles) */
  writeFile(fd: number, position: number, length: number): Promise<void>;
}

// read again: `header` changes as bytes are written, which a narrowing before the write does not know
const headerOf = (verifier: DataItemVerifier) => verifier.header;

function startSplitVerification(rules: VerifierOptions, hasher: BlobHasher = inlineHasher): SplitVerification {
  const verifier = createDataItemVerifier(rules);
  const digest = hasher.start();
  return {
    get headerParsed() {
      return verifier.header !== undefined;
    },
    write: async (chunk) => {
      if (!verifier.header) {
        verifier.writeHeader(chunk);
        // before any payload byte reaches the hasher
        const start = headerOf(verifier)?.payloadDataStart;
        if (start !== undefined) digest.payloadFrom(start);
      }
      await digest.update(chunk);
    },
    writeFile: async (fd, position, length) => {
      if (!verifier.header) throw new Error('item verification: file bytes before the header is parsed');
      await digest.updateFromFile(fd, position, length);
    },
    end: async () => {
      const { sha256, payload } = await digest.digests();
      // no payload digest: the header never completed, which end() answers
      const verified = await (payload ? verifier.endWithPayload(payload) : verifier.end());
      return { verified, sha256 };
    },
    abort: () => digest.abort(),
  };
}
