import * as nodeCrypto from 'node:crypto';
import { Chunker, type HashedChunk } from './chunker.js';

/**
 * The data root and chunk proofs of an Arweave format-2 transaction, as arweave-js `merkle.ts`
 * computes them (`generateLeaves`, `buildLayers`, `generateProofs`, `generateTransactionChunks`),
 * from data that streams through: only 32-byte hashes and offsets are kept per chunk (8193 chunks
 * for 2 GiB), never the chunk bytes.
 */

interface Node {
  id: Uint8Array;
  /** exclusive end of the data under this node */
  maxByteRange: number;
}

export class DataTree {
  readonly dataRoot: Uint8Array;
  readonly dataSize: number;
  /** the chunks to upload, in order; as arweave-js, without the empty last chunk of a 256 KiB multiple */
  readonly chunks: readonly HashedChunk[];
  /** layers[0] are the leaves, the last layer is the root alone */
  private readonly layers: readonly (readonly Node[])[];

  /** `hashed`: every chunk from the chunker, including an empty last one */
  constructor(hashed: readonly HashedChunk[]) {
    const last = hashed.at(-1);
    if (last === undefined) throw new Error('a data tree needs at least one chunk (empty data has one, empty)');
    const leaves = hashed.map(leaf);
    this.layers = buildLayers(leaves);
    this.dataRoot = (this.layers.at(-1) as Node[])[0]!.id;
    this.dataSize = last.maxByteRange;
    // the empty chunk is in the tree (so in the root) but is never uploaded
    this.chunks = last.maxByteRange === last.minByteRange ? hashed.slice(0, -1) : hashed;
  }

  /**
   * The chunk's `data_path`: from the root down, each branch's left id, right id and split offset
   * (a node without a sibling is carried up unchanged and adds nothing), then the chunk's own hash
   * and end offset.
   */
  proofFor(index: number): Uint8Array {
    const chunk = this.chunks[index];
    if (chunk === undefined) throw new RangeError(`no chunk ${index} (there are ${this.chunks.length})`);
    const segments: Uint8Array[] = [];
    let position = index;
    for (const layer of this.layers.slice(0, -1)) {
      const left = layer[position & ~1] as Node;
      const right = layer[(position & ~1) + 1];
      if (right !== undefined) segments.push(left.id, right.id, note(left.maxByteRange));
      position >>>= 1;
    }
    // collected bottom-up, three parts per branch: the path reads top-down
    const path: Uint8Array[] = [];
    for (let i = segments.length - 3; i >= 0; i -= 3) path.push(...segments.slice(i, i + 3));
    return Buffer.concat([...path, chunk.dataHash, note(chunk.maxByteRange)]);
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
  private readonly hashed: HashedChunk[] = [];
  private readonly chunker = new Chunker((chunk) => this.hashed.push(chunk));

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
 * (Node 20.12+) does those in half the time of `createHash`, a few percent of the whole pass.
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
const leaf = ({ dataHash, maxByteRange }: HashedChunk): Node => ({
  id: sha256(sha256(dataHash), sha256(note(maxByteRange))),
  maxByteRange,
});

function buildLayers(leaves: Node[]): Node[][] {
  const layers = [leaves];
  for (let layer = leaves; layer.length > 1; ) {
    const next: Node[] = [];
    for (let i = 0; i < layer.length; i += 2) {
      const left = layer[i] as Node;
      const right = layer[i + 1];
      next.push(right === undefined ? left : branch(left, right));
    }
    layers.push(next);
    layer = next;
  }
  return layers;
}

const branch = (left: Node, right: Node): Node => ({
  id: sha256(sha256(left.id), sha256(right.id), sha256(note(left.maxByteRange))),
  maxByteRange: right.maxByteRange,
});
