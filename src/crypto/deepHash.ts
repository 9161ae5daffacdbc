import * as nodeCrypto from 'node:crypto';
import { createHash, type Hash } from 'node:crypto';

/**
 * Arweave's deep hash (SHA-384), the message every ANS-104 signature covers, computed the way
 * arbundles' `deepHash` does, but synchronously and with the last blob streamed: a blob's tag
 * needs its length, which for a payload is known only at the end, while its SHA-384 can be
 * updated chunk by chunk. Nothing here keeps more than one hash state per open blob.
 */

export type DeepHashChunk = Uint8Array | readonly DeepHashChunk[];

// crypto.hash (Node 20.12 and later): one call, no Hash object, a fraction of createHash's cost on
// a deep hash's 96-byte inputs (a small upload takes some 30 of them); earlier Node 20 releases,
// which the service still runs on, keep createHash
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: Uint8Array, outputEncoding: 'buffer') => Buffer }).hash;

const sha384 = (...parts: Uint8Array[]): Buffer => {
  if (oneShot) return oneShot('sha384', parts.length === 1 ? parts[0]! : Buffer.concat(parts), 'buffer');
  const hash = createHash('sha384');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

// The hash of a blob's "blob<length>" tag, kept for header-sized lengths (owners of a fixed length
// per type, 32-byte targets and anchors, at most 4 KiB of tags): hashes that every item repeats
// were a measurable share of verifying a small item.
const TAG_CACHE_LIMIT = 8192;
const blobTags: Buffer[] = [];

function blobTagHash(byteLength: number): Buffer {
  if (byteLength > TAG_CACHE_LIMIT) return sha384(Buffer.from(`blob${byteLength}`));
  return (blobTags[byteLength] ??= sha384(Buffer.from(`blob${byteLength}`)));
}

/** a blob's SHA-384 and length: what its deep hash needs (an item's payload hashed on a worker) */
export interface BlobDigest {
  sha384: Uint8Array;
  byteLength: number;
}

/** deepHash of a blob whose SHA-384 and length are already known */
export function blobHashFromDigest(byteLength: number, digest: Uint8Array): Buffer {
  return sha384(blobTagHash(byteLength), digest);
}

export function blobHash(data: Uint8Array): Buffer {
  return blobHashFromDigest(data.byteLength, sha384(data));
}

/** A list being hashed element by element; each element arrives as its own deep hash. */
export class DeepHashList {
  private acc: Buffer;
  private added = 0;

  /** `acc` resumes a list whose elements so far hashed to it (see clone) */
  constructor(
    private readonly length: number,
    acc?: Buffer,
  ) {
    this.acc = acc ?? sha384(Buffer.from(`list${length}`));
  }

  /** an independent copy with the same elements added, to continue a common prefix */
  clone(): DeepHashList {
    const copy = new DeepHashList(this.length, this.acc);
    copy.added = this.added;
    return copy;
  }

  add(elementHash: Uint8Array): this {
    if (this.added === this.length) throw new Error(`deep hash list of ${this.length} already complete`);
    this.acc = sha384(this.acc, elementHash);
    this.added += 1;
    return this;
  }

  digest(): Buffer {
    if (this.added !== this.length) throw new Error(`deep hash list has ${this.added} of ${this.length} elements`);
    return this.acc;
  }
}

/** A blob fed in chunks: its deep hash is ready once the last chunk is in. */
export class StreamingBlobHash {
  private readonly hash: Hash = createHash('sha384');
  private length = 0;
  private ended: Buffer | undefined;

  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
    this.length += chunk.byteLength;
  }

  get byteLength(): number {
    return this.length;
  }

  /** the SHA-384 of the bytes themselves (once: the hash ends here) */
  sha384(): Buffer {
    this.ended ??= this.hash.digest();
    return this.ended;
  }

  digest(): Buffer {
    return blobHashFromDigest(this.length, this.sha384());
  }
}

export function deepHash(chunk: DeepHashChunk): Buffer {
  if (chunk instanceof Uint8Array) return blobHash(chunk);
  const list = new DeepHashList(chunk.length);
  for (const element of chunk) list.add(deepHash(element));
  return list.digest();
}
