import * as nodeCrypto from 'node:crypto';
import { Chunker, type HashedChunk } from './chunker.js';
import { HashList } from './hashList.js';

/**
 * The data root and chunk proofs of an Arweave format-2 transaction, as arweave-js `merkle.ts`
 * computes them (`generateLeaves`, `buildLayers`, `generateProofs`, `generateTransactionChunks`),
 * from data that streams through: per chunk only its hash and end offset are kept (40 bytes; 8193
 * chunks for 2 GiB), never its bytes. The tree over them is built when the data ends.
 */
export class DataTree {
  readonly dataRoot: Uint8Array;
  readonly dataSize: number;
  /** chunks to upload: as arweave-js, not the empty last chunk of a multiple of 256 KiB */
  readonly chunkCount: number;
  /** every chunk from the chunker, the empty last one included (it has a leaf): all a tree is built from (treeBlob.ts keeps it) */
  readonly hashed: HashList;
  /** layers[0] are the leaves, the last layer is the root alone */
  readonly layers: readonly HashList[];

  /**
   * `layers`, when given, are the tree's own, kept from an earlier build (treeBlob.ts): taken as they
   * are, shape checked, their hashes not computed again.
   */
  constructor(hashed: HashList, layers?: readonly HashList[]) {
    if (hashed.length === 0) throw new Error('a data tree needs at least one chunk (empty data has one, empty)');
    this.hashed = hashed;
    this.layers = layers ?? buildLayers(leaves(hashed));
    checkShape(hashed.length, this.layers);
    this.dataRoot = Buffer.from((this.layers.at(-1) as HashList).hash(0));
    const last = hashed.length - 1;
    this.dataSize = hashed.end(last);
    const lastIsEmpty = hashed.end(last) === (last === 0 ? 0 : hashed.end(last - 1));
    this.chunkCount = lastIsEmpty ? last : hashed.length;
  }

  chunk(index: number): HashedChunk {
    if (!(Number.isInteger(index) && index >= 0 && index < this.chunkCount)) {
      throw new RangeError(`no chunk ${index} (there are ${this.chunkCount})`);
    }
    return {
      minByteRange: index === 0 ? 0 : this.hashed.end(index - 1),
      maxByteRange: this.hashed.end(index),
      dataHash: Buffer.from(this.hashed.hash(index)),
    };
  }

  /** the chunk holding byte `position` of the data (binary search over the chunks' end offsets) */
  chunkIndexOf(position: number): number {
    if (!(Number.isSafeInteger(position) && position >= 0 && position < this.dataSize)) {
      throw new RangeError(`byte ${position} is outside the data's [0, ${this.dataSize})`);
    }
    let low = 0;
    let high = this.chunkCount - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.hashed.end(mid) <= position) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** all chunks as objects, for inspection; posting walks `chunk(i)` instead */
  get chunks(): HashedChunk[] {
    return Array.from({ length: this.chunkCount }, (_, i) => this.chunk(i));
  }

  /**
   * The chunk's `data_path`: from the root down, each branch's left id, right id and split offset
   * (a node without a sibling is carried up unchanged and adds nothing), then the chunk's own hash
   * and end offset.
   */
  proofFor(index: number): Buffer {
    const { maxByteRange, dataHash } = this.chunk(index);
    const branches: Uint8Array[][] = [];
    let position = index;
    for (const layer of this.layers.slice(0, -1)) {
      const left = position & ~1;
      if (left + 1 < layer.length) branches.push([layer.hash(left), layer.hash(left + 1), note(layer.end(left))]);
      position >>>= 1;
    }
    // collected bottom-up; the path reads top-down
    return Buffer.concat([...branches.reverse().flat(), dataHash, note(maxByteRange)]);
  }
}

/** Streams `source` through the chunker; resolves once the source ends. */
export async function computeDataRoot(source: AsyncIterable<Uint8Array>): Promise<DataTree> {
  const builder = new DataTreeBuilder();
  for await (const piece of source) builder.update(piece);
  return builder.finish();
}

/** For callers that see the bytes pass for another reason (hashing while they are also sent). */
export class DataTreeBuilder {
  private readonly hashed = new HashList();
  private readonly chunker = new Chunker(({ dataHash, maxByteRange }) => this.hashed.push(dataHash, maxByteRange));

  update(piece: Uint8Array): void {
    this.chunker.update(piece);
  }

  finish(): DataTree {
    this.chunker.finish();
    return new DataTree(this.hashed);
  }
}

/**
 * The tree of a 2 GiB bundle takes about 60000 hashes of 32 to 96 bytes: one-shot `crypto.hash`
 * (Node 20.12+) does those in half the time of `createHash`.
 */
const sha256: (...parts: Uint8Array[]) => Buffer =
  typeof nodeCrypto.hash === 'function'
    ? (...parts) => nodeCrypto.hash('sha256', parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts), 'buffer')
    : (...parts) => {
        const hash = nodeCrypto.createHash('sha256');
        for (const part of parts) hash.update(part);
        return hash.digest();
      };

/** arweave-js `intToBuffer`: 32 bytes, big-endian */
export function note(value: number): Buffer {
  const bytes = Buffer.alloc(32);
  for (let i = 31, rest = value; rest > 0; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
  return bytes;
}

/** arweave-js hashes each part before hashing their concatenation */
function leaves(hashed: HashList): HashList {
  const layer = new HashList(hashed.length);
  for (let i = 0; i < hashed.length; i++) {
    const end = hashed.end(i);
    layer.push(sha256(sha256(hashed.hash(i)), sha256(note(end))), end);
  }
  return layer;
}

/** one leaf per chunk, then each layer half the one below it (rounded up), up to the root alone */
function checkShape(leafCount: number, layers: readonly HashList[]): void {
  if (layers.length === 0) throw new RangeError('a tree has at least its root');
  let expected = leafCount;
  for (const [i, layer] of layers.entries()) {
    if (layer.length !== expected || (i === layers.length - 1) !== (expected === 1)) {
      throw new RangeError(`layer ${i} of a tree of ${leafCount} leaves has ${layer.length} nodes, not ${expected}`);
    }
    expected = Math.ceil(expected / 2);
  }
}

function buildLayers(bottom: HashList): HashList[] {
  const layers = [bottom];
  for (let layer = bottom; layer.length > 1;) {
    const next = new HashList(Math.ceil(layer.length / 2));
    for (let i = 0; i < layer.length; i += 2) {
      if (i + 1 === layer.length) {
        next.push(layer.hash(i), layer.end(i)); // no sibling: carried up as it is
      } else {
        next.push(sha256(sha256(layer.hash(i)), sha256(layer.hash(i + 1)), sha256(note(layer.end(i)))), layer.end(i + 1));
      }
    }
    layers.push(next);
    layer = next;
  }
  return layers;
}
