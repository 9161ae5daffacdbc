import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { Signer } from 'arbundles';
import { createDataItemVerifier, verifyDataItemStream, type VerifiedDataItem } from '../../src/verify/index.js';
import { asArbundlesReadsIt, randomBytes, randomChunks, randomInt, randomItemOptions, signedItem } from './support/items.js';
import { seededRandom } from '../support/seededRandom.js';
import { signers, type SignerName } from './support/signers.js';

const ITEMS_PER_TYPE = 24;
const PAYLOAD_SIZES = [0, 1, 5, 1024, 65_537];

async function* asyncChunks(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

describe('data item verifier', () => {
  let all: Record<SignerName, Signer>;
  before(async () => {
    all = await signers();
  });

  for (const name of ['arweave', 'ed25519', 'ethereum', 'solana', 'injectedAptos', 'multiAptos', 'typedEthereum'] as const) {
    it(`agrees with arbundles on ${ITEMS_PER_TYPE} random ${name} items fed in random chunks`, async () => {
      const random = seededRandom(name.length * 1000 + 17);
      const signer = all[name];
      for (let i = 0; i < ITEMS_PER_TYPE; i++) {
        const size = i < PAYLOAD_SIZES.length ? (PAYLOAD_SIZES[i] as number) : randomInt(random, 0, 3000);
        const item = await signedItem(signer, randomBytes(random, size), randomItemOptions(random));
        expect(await item.isValid(), `arbundles validity of case ${i}`).to.equal(true);

        const verifier = createDataItemVerifier({ maxSize: 1 << 20 });
        for (const chunk of randomChunks(random, item.getRaw())) verifier.write(chunk);
        const verified = await verifier.end();

        expect(verified, `case ${i}`).to.deep.include(asArbundlesReadsIt(item));
        expect(verified.signatureType).to.equal(signer.signatureType);
        expect(verified.target).to.equal(item.rawTarget.length > 0 ? item.target : undefined);
        expect(verified.anchor).to.equal(item.rawAnchor.length > 0 ? item.anchor : undefined);
      }
    });
  }

  it('verifies from an async iterable with verifyDataItemStream', async () => {
    const random = seededRandom(5);
    const item = await signedItem(all.arweave, randomBytes(random, 10_000), randomItemOptions(random));
    const verified = await verifyDataItemStream(asyncChunks(randomChunks(random, item.getRaw())), { maxSize: 1 << 20 });
    expect(verified.id).to.equal(item.id);
    expect(verified.payloadContentLength).to.equal(10_000);
  });

  it('knows the id exactly once the signature bytes are in, and the header once the tags are', async () => {
    const item = await signedItem(all.ethereum, 'payload', { tags: [{ name: 'a', value: 'b' }] });
    const raw = item.getRaw();
    const signatureEnd = 2 + 65;
    const headerEnd = item.getStartOfData();
    const verifier = createDataItemVerifier({ maxSize: 1 << 20 });
    for (let at = 0; at < raw.length; at++) {
      expect(verifier.id, `id after ${at} bytes`).to.equal(at < signatureEnd ? undefined : item.id);
      expect(verifier.header === undefined, `header after ${at} bytes`).to.equal(at < headerEnd);
      verifier.write(raw.subarray(at, at + 1));
    }
    const verified = await verifier.end();
    const { rawContentLength, payloadContentLength, payloadSha384, ...header } = verified;
    expect(verifier.header).to.deep.equal(header);
    expect([rawContentLength, payloadContentLength]).to.deep.equal([raw.length, 7]);
    expect(payloadSha384).to.equal(createHash('sha384').update('payload').digest('hex'));
  });

  it('ignores empty chunks', async () => {
    const item = await signedItem(all.ed25519, '');
    const verified = await createVerified([new Uint8Array(0), item.getRaw(), new Uint8Array(0)]);
    expect(verified.id).to.equal(item.id);
    expect(verified.payloadContentLength).to.equal(0);
  });

  it('answers the same result to a second end()', async () => {
    const item = await signedItem(all.ed25519, 'x');
    const verifier = createDataItemVerifier({ maxSize: 1 << 20 });
    verifier.write(item.getRaw());
    const first = verifier.end();
    expect(verifier.end()).to.equal(first);
    expect((await first).id).to.equal(item.id);
  });

  it('refuses bytes after end()', async () => {
    const item = await signedItem(all.ed25519, 'x');
    const verifier = createDataItemVerifier({ maxSize: 1 << 20 });
    verifier.write(item.getRaw());
    await verifier.end();
    expect(() => verifier.write(new Uint8Array(1))).to.throw('data item verifier: write after end');
  });
});

async function createVerified(chunks: Uint8Array[]): Promise<VerifiedDataItem> {
  const verifier = createDataItemVerifier({ maxSize: 1 << 20 });
  for (const chunk of chunks) verifier.write(chunk);
  return verifier.end();
}
