import { expect } from 'chai';
import { generateTransactionChunks, validatePath } from 'arweave/node/lib/merkle.js';
import { computeDataRoot, loadTree, saveTree, treeBlobKey } from '../../src/bundling/index.js';
import { BlobNotFound } from '../../src/ports/blobStore.js';
import { tempBlobStore, type TempBlobStore } from '../support/tempBlobStore.js';
import { asAsync, bytesOf } from './support/random.js';
import { HashList } from '../../src/bundling/hashList.js';
import { DataTree } from '../../src/bundling/merkle.js';
import { createHash } from 'node:crypto';

const KiB = 1024;
const PLAN = 'pLaNiD0123456789abcdef';

/**
 * A bundle's chunk hashes kept in the blob store give back its tree: the same data root and the
 * same chunk proofs as arweave-js computes from the whole data, and proofs its validatePath accepts.
 */
describe('tree blob', () => {
  let blobs: TempBlobStore;
  beforeEach(async () => (blobs = await tempBlobStore()));
  afterEach(() => blobs.dispose());

  // one chunk; a multiple of 256 KiB (its empty last chunk has a leaf); the last two chunks halved
  for (const size of [1000, 512 * KiB, 3 * 256 * KiB + 7]) {
    it(`gives back the tree of ${size} bytes, its proofs arweave-js's`, async () => {
      const data = bytesOf(size, size);
      const tree = await computeDataRoot(asAsync([data]));
      await saveTree(blobs.store, PLAN, tree);
      // the count, the chunks, every layer of the tree, the checksum
      const nodes = tree.layers.reduce((sum, layer) => sum + layer.length, 0);
      expect((await blobs.store.stat(treeBlobKey(PLAN)))?.size).to.equal(8 + 40 * (tree.hashed.length + nodes) + 32);

      const loaded = await loadTree(blobs.store, PLAN);
      const expected = await generateTransactionChunks(data);
      expect(Buffer.from(loaded.dataRoot).toString('hex')).to.equal(Buffer.from(expected.data_root).toString('hex'));
      expect(loaded.dataSize).to.equal(size);
      expect(loaded.chunkCount).to.equal(expected.chunks.length);
      for (let i = 0; i < loaded.chunkCount; i++) {
        expect(loaded.proofFor(i).toString('hex'), `proof ${i}`).to.equal(Buffer.from(expected.proofs[i]!.proof).toString('hex'));
        const { minByteRange, maxByteRange } = loaded.chunk(i);
        const result = await validatePath(loaded.dataRoot, maxByteRange - 1, 0, size, loaded.proofFor(i));
        expect(result).to.include({ leftBound: minByteRange, rightBound: maxByteRange });
        expect(loaded.chunkIndexOf(minByteRange)).to.equal(i);
        expect(loaded.chunkIndexOf(maxByteRange - 1)).to.equal(i);
      }
    });
  }

  it('gives back a tree of more chunks than one write batch holds (1024), every proof the same', async () => {
    const hashed = new HashList();
    for (let i = 0; i < 2500; i++) hashed.push(createHash('sha256').update(String(i)).digest(), (i + 1) * 256 * KiB);
    const tree = new DataTree(hashed);
    await saveTree(blobs.store, PLAN, tree);
    const loaded = await loadTree(blobs.store, PLAN);
    expect(Buffer.from(loaded.dataRoot).toString('hex')).to.equal(Buffer.from(tree.dataRoot).toString('hex'));
    expect(loaded.dataSize).to.equal(2500 * 256 * KiB);
    for (let i = 0; i < tree.chunkCount; i++) expect(loaded.proofFor(i).equals(tree.proofFor(i)), `proof ${i}`).to.equal(true);
  });

  it('refuses a blob changed or cut since it was written, and says BlobNotFound when there is none', async () => {
    const tree = await computeDataRoot(asAsync([bytesOf(600 * KiB, 1)]));
    const refused = async (why: string) =>
      loadTree(blobs.store, PLAN).then(
        () => expect.fail(`loaded a blob that ${why}`),
        (error: Error) => expect(error.message, why).to.equal(`tree blob of plan ${PLAN} does not match its checksum`),
      );
    await saveTree(blobs.store, PLAN, tree);
    const { size } = (await blobs.store.stat(treeBlobKey(PLAN)))!;
    // one bit of an inner node: no path would lead to the root any more
    const at = 8 + 40 * 5;
    const [byte] = await (await blobs.store.read(treeBlobKey(PLAN), { start: at, end: at })).toArray();
    await blobs.store.writeAt(treeBlobKey(PLAN), at, asAsync([Buffer.from([(byte as Buffer)[0]! ^ 1])]));
    await refused('has a changed node');
    await saveTree(blobs.store, PLAN, tree);
    await blobs.store.truncate(treeBlobKey(PLAN), size - 40);
    await refused('was cut');
    await loadTree(blobs.store, 'nOtKePtAnYwHeRe0123456').then(
      () => expect.fail('loaded a blob never written'),
      (error: unknown) => expect(BlobNotFound.is(error)).to.equal(true),
    );
  });

  it('finds the chunk of any byte, and no chunk for a byte outside the data', async () => {
    const tree = await computeDataRoot(asAsync([bytesOf(256 * KiB + 40 * KiB, 2)]));
    expect([0, 256 * KiB - 1, 256 * KiB, 296 * KiB - 1].map((b) => tree.chunkIndexOf(b))).to.deep.equal([0, 0, 1, 1]);
    expect(() => tree.chunkIndexOf(296 * KiB)).to.throw(RangeError);
    expect(() => tree.chunkIndexOf(-1)).to.throw(RangeError);
  });
});
