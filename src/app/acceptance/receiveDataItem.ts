import { inlineHasher, type BlobHasher } from '../../crypto/blobHasher.js';
import { BlobNotFound, type BlobStore, type BlobWriter } from '../../ports/blobStore.js';
import { createDataItemVerifier, type VerifiedDataItem, type VerifiedHeader, type VerifierOptions } from '../../verify/index.js';
import { gatheredWrites } from '../../gatheredWrites.js';

/** a verified item and its blob digest */
export interface VerifiedBytes {
  verified: VerifiedDataItem;
  /** hex sha256 of the raw bytes (the blob digest: src/crypto/blobHasher.ts) */
  sha256: string;
}

/** A verified item whose bytes wait in the blob store under a provisional name. */
export interface ReceivedDataItem extends VerifiedBytes {
  /** makes the bytes durable under `key` */
  commit(key: string): Promise<void>;
  /** gives the provisional bytes up (the item was refused or already stored) */
  discard(): Promise<void>;
  /**
   * takes back what `commit` put under its key when the acceptance was not recorded after all: the
   * bytes are deleted, or moved back where they were verified; nothing when `commit` was not called
   */
  withdraw(): Promise<void>;
}

/**
 * `commit`, `discard` and `withdraw` for bytes that `put` makes a new blob under the item's key (a
 * temporary blob committed, chunks composed): withdrawing deletes that blob (nothing when `commit` was
 * never called); `discard` gives up the provisional bytes.
 */
export function newBlobCommit(
  blobStore: Pick<BlobStore, 'delete'>,
  put: (key: string) => Promise<unknown>,
  discard: () => Promise<void>,
): Pick<ReceivedDataItem, 'commit' | 'discard' | 'withdraw'> {
  let committedTo: string | undefined;
  return {
    commit: async (key) => {
      committedTo = key;
      await put(key);
    },
    discard,
    withdraw: async () => {
      if (committedTo !== undefined) await blobStore.delete(committedTo);
    },
  };
}

/**
 * Streams an item's bytes once: into a temporary blob, through the verifier (SHA-384, on this thread)
 * and the blob digest (SHA-256, on the hasher's worker threads for all but small items), so memory
 * stays bounded by two write batches and the hasher's pieces whatever the size; the source is not read
 * further while either is behind. The writes take the request's own pieces, gathered into batches
 * of about a MiB (src/gatheredWrites.ts): no copy, no buffer of ours. On any failure nothing is left.
 */
export async function receiveDataItem(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  deps: {
    blobStore: BlobStore;
    maxSize: number;
    /** STRICT_TAGS: the ANS-104 text's tag limits (src/verify/tags.ts) */
    strictTags?: boolean;
    /** called once, as soon as the header is parsed: a chance to refuse before the payload arrives */
    onHeader?: (header: VerifiedHeader) => Promise<void>;
    /** seconds the verification took after the last byte (the signature check; hashing ran meanwhile) */
    observeVerify?: (seconds: number) => void;
    /** computes the blob digest (default: on this thread) */
    hasher?: BlobHasher;
  },
): Promise<ReceivedDataItem> {
  const verifier = createDataItemVerifier({ maxSize: deps.maxSize, ...(deps.strictTags ? { strictTags: true } : {}) });
  const writer = await deps.blobStore.createWriter();
  const digest = (deps.hasher ?? inlineHasher).start();
  const writes = gatheredWrites(writer);
  try {
    let headerSeen = false;
    for await (const chunk of source) {
      verifier.write(chunk);
      // the worker hashes this chunk while the next ones are read and SHA-384'd here
      await digest.update(chunk);
      await writes.write(chunk);
      if (!headerSeen && verifier.header) {
        headerSeen = true;
        await deps.onHeader?.(verifier.header);
      }
    }
    await writes.end();
    const verifying = process.hrtime.bigint();
    const [verified, sha256] = await Promise.all([verifier.end(), digest.digest()]);
    deps.observeVerify?.(Number(process.hrtime.bigint() - verifying) / 1e9);
    return {
      verified,
      sha256,
      ...newBlobCommit(
        deps.blobStore,
        (key) => writer.commit(key),
        () => writer.abort(),
      ),
    };
  } catch (error) {
    digest.abort();
    await writes.release();
    await writer.abort();
    throw error;
  }
}

/**
 * Verifies an item already in the blob store by streaming `[0, size)` of a blob nobody writes any
 * more (a multi-part upload held in one chunk, or an earlier version's upload blob); committing moves
 * that blob, so its bytes are never copied.
 */
export async function verifyStoredDataItem(
  blobStore: BlobStore,
  key: string,
  size: number,
  /** the size limit and the tag rules of this service */
  rules: VerifierOptions,
  /** seconds reading and verifying took */
  observeVerify?: (seconds: number) => void,
  /** computes the blob digest (default: on this thread) */
  hasher: BlobHasher = inlineHasher,
): Promise<ReceivedDataItem> {
  async function* bytes() {
    if (size > 0) yield* (await blobStore.read(key, { start: 0, end: size - 1 })) as AsyncIterable<Uint8Array>;
  }
  return storedDataItem(blobStore, key, size, await verifyBytes(bytes(), rules, observeVerify, hasher));
}

/** `[0, size)` of the blob `key`, nobody writes any more, verified: committing moves that blob */
export function storedDataItem(blobStore: BlobStore, key: string, size: number, { verified, sha256 }: VerifiedBytes): ReceivedDataItem {
  let committedTo: string | undefined;
  return {
    verified,
    sha256,
    commit: async (target) => {
      committedTo = target;
      // bytes past `size` (a last part replaced by a shorter one) are not part of the item
      await blobStore.truncate(key, size);
      await blobStore.move(key, target);
    },
    // the upload keeps its bytes: a refused finalize (underfunded) may be asked again
    discard: async () => {},
    // back to the upload, whose finalization stays resumable (bytes verified under the item's own key,
    // after a crash between the move and the acceptance, stay there: that is where a resume looks)
    withdraw: async () => {
      if (committedTo === undefined || committedTo === key) return;
      try {
        await blobStore.move(committedTo, key);
      } catch (error) {
        // the commit failed before its move: the bytes never left
        if (!BlobNotFound.is(error)) throw error;
      }
    },
  };
}

/**
 * An item's two digests over bytes given in order: the verifier (SHA-384 of the deep hash and the
 * parsing, on this thread) and the blob digest (SHA-256, on the hasher's workers). `write` resolves
 * once the hasher has room for more: the caller reads its source no further meanwhile.
 */
export interface ItemVerification {
  write(chunk: Uint8Array): Promise<void>;
  /** the verified item and the blob digest of every byte written */
  end(): Promise<VerifiedBytes>;
  /** the bytes will not all come: frees what the blob digest holds */
  abort(): void;
}

export function startVerification(rules: VerifierOptions, hasher: BlobHasher = inlineHasher): ItemVerification {
  const verifier = createDataItemVerifier(rules);
  const digest = hasher.start();
  return {
    write: async (chunk) => {
      verifier.write(chunk);
      await digest.update(chunk);
    },
    end: async () => {
      const [verified, sha256] = await Promise.all([verifier.end(), digest.digest()]);
      return { verified, sha256 };
    },
    abort: () => digest.abort(),
  };
}

/**
 * Reads an item's bytes once, writing nothing: through the verifier (SHA-384, on this thread) and the
 * blob digest (SHA-256, on the hasher's workers), the source not read further while either is behind.
 */
export async function verifyBytes(
  source: AsyncIterable<Uint8Array>,
  rules: VerifierOptions,
  observeVerify?: (seconds: number) => void,
  hasher: BlobHasher = inlineHasher,
): Promise<VerifiedBytes> {
  const started = process.hrtime.bigint();
  const verification = startVerification(rules, hasher);
  try {
    for await (const chunk of source) await verification.write(chunk);
    const result = await verification.end();
    observeVerify?.(Number(process.hrtime.bigint() - started) / 1e9);
    return result;
  } catch (error) {
    verification.abort();
    throw error;
  }
}
