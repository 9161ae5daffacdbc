import { expect } from 'chai';
import Arweave from 'arweave';
import { generateTransactionChunks, validatePath } from 'arweave/node/lib/merkle.js';
import { Bundle, type DataItem } from 'arbundles';
import { bundleBytes, bundleLayout, chunkUploads, prepareBundle, type BlobEntry } from '../../src/bundling/index.js';
import { loadTestJwk } from '../fixtures/testWallet.js';
import { collect, storeItems } from './support/blobs.js';
import { tempBlobStore, type TempBlobStore } from '../support/tempBlobStore.js';
import { arbundlesBundle, mixedItems } from './support/bundles.js';

describe('preparing a bundle end to end', () => {
  const KiB = 1024;
  const anchor = 'b'.repeat(64);
  let blobs: TempBlobStore;
  let items: DataItem[];
  let entries: BlobEntry[];
  let expected: Buffer;
  before(async function () {
    this.timeout(60_000);
    // 20 items over four signature types; payloads from empty to 400 KiB
    const sizes = [0, 1, 33, 1000, 4096, 40 * KiB, 260 * KiB, 7, 400 * KiB, 12 * KiB, 3, 100 * KiB, 31 * KiB, 2, 256 * KiB, 900, 64, 5 * KiB, 1, 180 * KiB];
    items = await mixedItems(sizes);
    expected = await arbundlesBundle(items);
    blobs = await tempBlobStore();
    entries = await storeItems(blobs.store, items);
  });
  after(() => blobs.dispose());

  it("streams arbundles' bundle of the same items byte for byte, and arbundles verifies every item in it", async () => {
    const streamed = await collect(bundleBytes(blobs.store, entries));
    expect(streamed.equals(expected)).to.equal(true);
    const parsed = new Bundle(streamed);
    expect(parsed.getIds()).to.deep.equal(items.map((i) => i.id));
    expect(parsed.getSizes()).to.deep.equal(items.map((i) => i.getRaw().byteLength));
    expect(await parsed.verify()).to.equal(true);
    expect(new Set(items.map((i) => i.signatureType))).to.deep.equal(new Set([1, 2, 3, 4]));
  });

  it("signs a transaction with arweave-js' data root for the whole bundle, and posts chunks that rebuild it", async () => {
    const layout = bundleLayout(entries);
    const { tx, tree } = await prepareBundle({ blobStore: blobs.store, layout, jwk: loadTestJwk(), anchor, reward: '42' });
    const reference = await generateTransactionChunks(expected);
    expect([tx.data_root, tx.data_size]).to.deep.equal([Buffer.from(reference.data_root).toString('base64url'), String(expected.byteLength)]);
    const arweave = Arweave.init({});
    expect(await arweave.transactions.verify(arweave.transactions.fromRaw(tx))).to.equal(true);

    const parts: Buffer[] = [];
    for await (const body of chunkUploads(blobs.store, layout, tree)) {
      const chunk = Buffer.from(body.chunk, 'base64url');
      const offset = Number(body.offset);
      // what a gateway checks before it takes a chunk
      const proof = await validatePath(tree.dataRoot, offset, 0, tree.dataSize, Buffer.from(body.data_path, 'base64url'));
      expect(proof && proof.chunkSize).to.equal(chunk.byteLength);
      expect([body.data_root, body.data_size]).to.deep.equal([tx.data_root, tx.data_size]);
      parts.push(chunk);
    }
    expect(Buffer.concat(parts).equals(expected)).to.equal(true);
  });
});
