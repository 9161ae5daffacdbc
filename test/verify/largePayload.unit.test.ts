import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ArweaveSigner, createData, deepHash, type DataItem } from 'arbundles';
import { verifyDataItemStream } from '../../src/verify/index.js';
import { arweaveJwk } from './support/signers.js';

const CHUNK = 64 * 1024;
const PAYLOAD = 50 * 1024 * 1024;

/**
 * The payload comes from one 64 KiB buffer, refilled in place before every chunk: a verifier that
 * kept a reference to an earlier chunk instead of hashing it at once would see altered bytes.
 */
async function* payload(): AsyncGenerator<Uint8Array> {
  const buffer = Buffer.alloc(CHUNK);
  for (let i = 0; i < PAYLOAD / CHUNK; i++) {
    buffer.fill(i % 251);
    buffer.writeUInt32LE(i, 0);
    yield buffer;
  }
}

/** the fields arbundles' getSignatureData lists before the payload */
const fieldsBeforePayload = (item: DataItem): Uint8Array[] => [
  Buffer.from('dataitem'),
  Buffer.from('1'),
  Buffer.from(String(item.signatureType)),
  item.rawOwner,
  item.rawTarget,
  item.rawAnchor,
  item.rawTags,
];

describe('data item verifier on a large payload', function () {
  this.timeout(120_000);

  it('verifies a 50 MiB payload streamed in 64 KiB chunks', async () => {
    const signer = new ArweaveSigner(arweaveJwk);
    // arbundles lays out the header (an item with no payload yet) ...
    const headerItem = createData('', signer, { tags: [{ name: 'Content-Type', value: 'application/x-test' }] });
    const header = headerItem.getRaw();
    expect(await deepHash([...fieldsBeforePayload(headerItem), Buffer.alloc(0)])).to.deep.equal(await headerItem.getSignatureData());
    // ... and its deep hash signs the 50 MiB as a stream, never held in memory
    // (arbundles' deepHash takes an async iterable as a streamed blob; its type does not say so)
    const streamed = [...fieldsBeforePayload(headerItem), payload()] as unknown as Parameters<typeof deepHash>[0];
    const signature = Buffer.from(await signer.sign(await deepHash(streamed)));
    signature.copy(header, 2);

    async function* item(): AsyncGenerator<Uint8Array> {
      yield header;
      yield* payload();
    }
    const verified = await verifyDataItemStream(item(), { maxSize: 2 ** 31 });

    expect(verified.id).to.equal(createHash('sha256').update(signature).digest('base64url'));
    expect(verified.contentType).to.equal('application/x-test');
    expect(verified.payloadDataStart).to.equal(header.length);
    expect(verified.payloadContentLength).to.equal(PAYLOAD);
    expect(verified.rawContentLength).to.equal(header.length + PAYLOAD);
  });
});
