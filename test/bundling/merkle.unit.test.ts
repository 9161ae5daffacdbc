import { expect } from 'chai';
import { generateTransactionChunks, validatePath } from 'arweave/node/lib/merkle.js';
import { Chunker, type HashedChunk } from '../../src/bundling/chunker.js';
import { computeDataRoot, DataTreeBuilder } from '../../src/bundling/index.js';
import { asAsync, bytesOf, piecesOf } from './support/random.js';
import { seededRandom } from '../support/seededRandom.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** what arweave-js computes from the whole buffer, in comparable form */
async function arweaveJs(data: Uint8Array) {
  const { data_root, chunks, proofs } = await generateTransactionChunks(data);
  return {
    dataRoot: hex(data_root),
    chunks: chunks.map((c) => ({ minByteRange: c.minByteRange, maxByteRange: c.maxByteRange, dataHash: hex(c.dataHash) })),
    proofs: proofs.map((p) => ({ offset: p.offset, proof: hex(p.proof) })),
  };
}

async function streamed(source: Iterable<Uint8Array>) {
  const tree = await computeDataRoot(asAsync(source));
  return {
    dataSize: tree.dataSize,
    dataRoot: hex(tree.dataRoot),
    chunks: tree.chunks.map((c) => ({ minByteRange: c.minByteRange, maxByteRange: c.maxByteRange, dataHash: hex(c.dataHash) })),
    proofs: tree.chunks.map((c, i) => ({ offset: c.maxByteRange - 1, proof: hex(tree.proofFor(i)) })),
  };
}

describe('data root and chunk proofs', () => {
  const sizes = [
    1,
    1000,
    32 * KiB,
    256 * KiB - 1,
    256 * KiB,
    256 * KiB + 1,
    256 * KiB + 31 * KiB,
    256 * KiB + 32 * KiB - 1,
    256 * KiB + 32 * KiB,
    256 * KiB + 33 * KiB,
    512 * KiB,
    512 * KiB + 10,
    768 * KiB + 20 * KiB,
    MiB + 7,
    3 * MiB,
    5 * 256 * KiB + 100,
    7 * 256 * KiB + 31 * KiB,
  ];
  for (const [n, size] of sizes.entries()) {
    it(`equals arweave-js for ${size} bytes fed in random pieces`, async () => {
      const data = bytesOf(size, n);
      const expected = await arweaveJs(data);
      const actual = await streamed(piecesOf(data, seededRandom(n)));
      expect(actual).to.deep.equal({ dataSize: size, ...expected });
    });
  }

  it('equals arweave-js when the bytes come one at a time', async () => {
    const data = bytesOf(256 * KiB + 20 * KiB, 99);
    const ones = Array.from({ length: data.byteLength }, (_, i) => data.subarray(i, i + 1));
    expect(await streamed(ones)).to.deep.equal({ dataSize: data.byteLength, ...(await arweaveJs(data)) });
  });

  it('equals arweave-js in one piece', async () => {
    const data = bytesOf(MiB + 7, 5);
    expect(await streamed([data])).to.deep.equal({ dataSize: data.byteLength, ...(await arweaveJs(data)) });
  });

  it('splits the last 256 KiB + 31 KiB evenly, as arweave-js does', async () => {
    const tree = await computeDataRoot(asAsync([bytesOf(2 * 256 * KiB + 31 * KiB)]));
    expect(tree.chunks.map((c) => [c.minByteRange, c.maxByteRange])).to.deep.equal([
      [0, 262144],
      [262144, 262144 + 146944],
      [262144 + 146944, 2 * 262144 + 31744],
    ]);
  });

  it('proves a 256 KiB multiple with the empty last chunk in the tree but not uploaded', async () => {
    const tree = await computeDataRoot(asAsync([bytesOf(512 * KiB)]));
    expect(tree.chunks.map((c) => [c.minByteRange, c.maxByteRange])).to.deep.equal([
      [0, 262144],
      [262144, 524288],
    ]);
    // a 3-leaf tree: the first two chunks sit under a branch beside the empty leaf
    expect(tree.proofFor(0).byteLength).to.equal(96 + 96 + 64);
    expect(() => tree.proofFor(2)).to.throw(RangeError, 'no chunk 2 (there are 2)');
  });

  it('gives empty data the root arweave-js gives it, and no chunk', async () => {
    const tree = await computeDataRoot(asAsync([]));
    const expected = await generateTransactionChunks(new Uint8Array(0));
    expect({ size: tree.dataSize, root: hex(tree.dataRoot), chunks: tree.chunks.length }).to.deep.equal({
      size: 0,
      root: hex(expected.data_root),
      chunks: 0,
    });
  });

  it('gives proofs that the path check gateways run accepts', async () => {
    const tree = await computeDataRoot(asAsync(piecesOf(bytesOf(5 * 256 * KiB + 100), seededRandom(3))));
    for (const [i, chunk] of tree.chunks.entries()) {
      const result = await validatePath(tree.dataRoot, chunk.minByteRange, 0, tree.dataSize, tree.proofFor(i));
      expect(result, `chunk ${i}`).to.deep.equal({
        offset: chunk.maxByteRange - 1,
        leftBound: chunk.minByteRange,
        rightBound: chunk.maxByteRange,
        chunkSize: chunk.maxByteRange - chunk.minByteRange,
      });
    }
  });

  it('does not depend on a piece once update returns (a source may reuse its buffer)', async () => {
    const data = bytesOf(700 * KiB + 5, 21);
    const builder = new DataTreeBuilder();
    const reused = new Uint8Array(100 * KiB);
    for (let at = 0; at < data.byteLength; at += reused.byteLength) {
      const piece = reused.subarray(0, Math.min(reused.byteLength, data.byteLength - at));
      piece.set(data.subarray(at, at + piece.byteLength));
      builder.update(piece);
      reused.fill(0xee);
    }
    expect(hex(builder.finish().dataRoot)).to.equal((await arweaveJs(data)).dataRoot);
  });

  it('refuses more data after finishing', () => {
    const builder = new DataTreeBuilder();
    builder.finish();
    expect(() => builder.update(new Uint8Array(1))).to.throw(Error, 'chunker already finished');
  });
});

describe('chunker', () => {
  it('cuts a full chunk as soon as 288 KiB are pending, before the data ends', () => {
    const cut: HashedChunk[] = [];
    const chunker = new Chunker((chunk) => cut.push(chunk));
    chunker.update(new Uint8Array(288 * KiB - 1));
    expect(cut).to.have.length(0);
    chunker.update(new Uint8Array(1));
    expect(cut.map((c) => [c.minByteRange, c.maxByteRange])).to.deep.equal([[0, 262144]]);
  });

  it('holds no more than 288 KiB unhashed however large the input', () => {
    const cut: HashedChunk[] = [];
    const chunker = new Chunker((chunk) => cut.push(chunk));
    const piece = new Uint8Array(64 * KiB);
    for (let fed = 64 * KiB; fed <= 10 * MiB; fed += 64 * KiB) {
      chunker.update(piece);
      const hashed = cut.at(-1)?.maxByteRange ?? 0;
      expect(fed - hashed, `after ${fed} bytes`).to.be.below(288 * KiB);
    }
  });
});
