import { expect } from 'chai';
import { DataItem, type Signer } from 'arbundles';
import { DataItemTooLarge, InvalidDataItem } from '../../src/domain/errors.js';
import { createDataItemVerifier, encodeTags, type DataItemVerifier } from '../../src/verify/index.js';
import { assembledFor } from './support/assemble.js';
import { signedItem } from './support/items.js';
import { failureOf } from './support/outcome.js';
import { signers, type SignerName } from './support/signers.js';

/** the error thrown by write() itself, while bytes are still arriving */
function writeFailure(bytes: Uint8Array, maxSize = 1 << 20): unknown {
  return failureOfWrite(createDataItemVerifier({ maxSize }), bytes);
}

function failureOfWrite(verifier: DataItemVerifier, bytes: Uint8Array): unknown {
  try {
    verifier.write(bytes);
  } catch (error) {
    return error;
  }
  return undefined;
}

const detail = (error: unknown): string | undefined => (error instanceof InvalidDataItem ? error.detail : String(error));

const tags = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `n${i}`, value: 'v' }));

describe('data item verifier limits', () => {
  let all: Record<SignerName, Signer>;
  before(async () => {
    all = await signers();
  });

  /** offset of the 16 tag size bytes of an ed25519 item without target and anchor */
  const TAG_SIZES_AT = 2 + 64 + 32 + 1 + 1;

  it('refuses more than 4096 tag bytes as soon as the tag sizes arrive', async () => {
    const rawTags = encodeTags([
      { name: 'a', value: 'v'.repeat(3072) },
      { name: 'b', value: 'v'.repeat(1015) },
    ]);
    expect(rawTags.length).to.equal(4097);
    const item = await assembledFor(all.ed25519, { tagCount: 2, rawTags });
    const error = writeFailure(item.getRaw().subarray(0, TAG_SIZES_AT + 16));
    expect(error).to.be.instanceOf(InvalidDataItem);
    expect(detail(error)).to.equal('tag bytes length over 4096');
  });

  it('accepts exactly 4096 tag bytes', async () => {
    const rawTags = encodeTags([
      { name: 'a', value: 'v'.repeat(3072) },
      { name: 'b', value: 'v'.repeat(1014) },
    ]);
    expect(rawTags.length).to.equal(4096);
    const item = await assembledFor(all.ed25519, { tagCount: 2, rawTags });
    expect(await failureOf([item.getRaw()])).to.match(/^accepted as /);
  });

  it('under strict tag rules, refuses 129 tags as soon as the tag sizes arrive, and accepts 128', async () => {
    const over = await signedItem(all.ed25519, 'x', { tags: tags(129) });
    const strict = createDataItemVerifier({ maxSize: 1 << 20, strictTags: true });
    expect(detail(failureOfWrite(strict, over.getRaw().subarray(0, TAG_SIZES_AT + 16)))).to.equal('tag count over 128');
    const limit = await signedItem(all.ed25519, 'x', { tags: tags(128) });
    expect(await failureOf([limit.getRaw()], undefined, true)).to.match(/^accepted as /);
  });

  it('accepts 129 tags by default, as arbundles does', async () => {
    const over = await signedItem(all.ed25519, 'x', { tags: tags(129) });
    expect(await DataItem.verify(over.getRaw())).to.equal(true);
    expect(await failureOf([over.getRaw()])).to.equal(`accepted as ${over.id}`);
  });

  it('accepts by default as many empty tags as fit in 4096 tag bytes (2046), and refuses 2047, as arbundles does', async () => {
    const empty = (count: number) => Array.from({ length: count }, () => ({ name: '', value: '' }));
    const fits = await assembledFor(all.ed25519, { tagCount: 2046, rawTags: encodeTags(empty(2046)), payload: Buffer.from('x') });
    expect(await DataItem.verify(fits.getRaw())).to.equal(true);
    expect(await failureOf([fits.getRaw()])).to.equal(`accepted as ${fits.id}`);
    const over = await assembledFor(all.ed25519, { tagCount: 2047, rawTags: encodeTags(empty(2047)), payload: Buffer.from('x') });
    expect(await DataItem.verify(over.getRaw())).to.equal(false);
    expect(detail(writeFailure(over.getRaw()))).to.equal('tag bytes length over 4096');
  });

  it('refuses tag sizes whose upper 32 bits are set', async () => {
    const raw = Buffer.from((await signedItem(all.ed25519, 'x', { tags: tags(1) })).getRaw());
    raw[TAG_SIZES_AT + 4] = 1;
    expect(detail(writeFailure(raw))).to.equal('tag count over 2048');
    const other = Buffer.from((await signedItem(all.ed25519, 'x', { tags: tags(1) })).getRaw());
    other[TAG_SIZES_AT + 15] = 0x80;
    expect(detail(writeFailure(other))).to.equal('tag bytes length over 4096');
  });

  it('refuses tags declared without tag bytes', async () => {
    const item = await assembledFor(all.ed25519, { tagCount: 1, rawTags: Buffer.alloc(0), payload: Buffer.from('x') });
    expect(detail(writeFailure(item.getRaw()))).to.equal('1 tags declared in 0 tag bytes');
  });

  it('refuses a target presence byte other than 0 or 1 as soon as it arrives', async () => {
    const raw = Buffer.from((await signedItem(all.ed25519, 'x')).getRaw());
    raw[2 + 64 + 32] = 2;
    const error = writeFailure(raw.subarray(0, 2 + 64 + 32 + 1));
    expect(error).to.be.instanceOf(InvalidDataItem);
    expect(detail(error)).to.equal('target presence byte is 2');
  });

  it('refuses an anchor presence byte other than 0 or 1', async () => {
    const raw = Buffer.from((await signedItem(all.ed25519, 'x')).getRaw());
    raw[2 + 64 + 32 + 1] = 0xff;
    expect(detail(writeFailure(raw))).to.equal('anchor presence byte is 255');
  });

  it('refuses unsupported signature types from the first two bytes', () => {
    for (const [bytes, type] of [
      [[0, 0], 0],
      [[8, 0], 8],
      [[1, 1], 257],
      [[0xff, 0xff], 65535],
    ] as const) {
      const error = writeFailure(Buffer.from(bytes));
      expect(error).to.be.instanceOf(InvalidDataItem);
      expect(detail(error)).to.equal(`unsupported signature type ${type}`);
    }
  });

  it('refuses a byte past maxSize with DataItemTooLarge and accepts an item of exactly maxSize', async () => {
    const raw = (await signedItem(all.ed25519, 'twelve bytes')).getRaw();
    const error = writeFailure(raw, raw.length - 1);
    expect(error).to.be.instanceOf(DataItemTooLarge);
    expect((error as DataItemTooLarge).detail).to.equal(`more than ${raw.length - 1} bytes`);
    expect(await failureOf([raw], raw.length)).to.match(/^accepted as /);
  });

  it('counts maxSize over all chunks, and keeps failing after the first failure', async () => {
    const raw = (await signedItem(all.ed25519, 'x'.repeat(100))).getRaw();
    const verifier = createDataItemVerifier({ maxSize: raw.length - 50 });
    verifier.write(raw.subarray(0, raw.length - 60));
    expect(() => verifier.write(raw.subarray(raw.length - 60))).to.throw(DataItemTooLarge);
    expect(() => verifier.write(new Uint8Array(1))).to.throw(DataItemTooLarge);
    let ended: unknown;
    await verifier.end().catch((error: unknown) => (ended = error));
    expect(ended).to.be.instanceOf(DataItemTooLarge);
  });

  it('refuses an ethereum owner that is not an uncompressed public key', async () => {
    const raw = Buffer.from((await signedItem(all.ethereum, 'x')).getRaw());
    raw[2 + 65] = 0x02;
    expect(detail(writeFailure(raw))).to.equal('ethereum owner is not an uncompressed public key');
  });

  it('refuses a typed ethereum owner that is not a 0x address or has a wrong checksum', async () => {
    const raw = (await signedItem(all.typedEthereum, 'x')).getRaw();
    const ownerAt = 2 + 65;
    for (const owner of [
      '0x2c7536e3605d9c16a7a3d7b1898e529396a65c2g',
      '0X2c7536e3605d9c16a7a3d7b1898e529396a65c23',
      '0x2C7536E3605D9C16a7a3D7b1898e529396a65c23',
    ]) {
      const copy = Buffer.from(raw);
      copy.write(owner, ownerAt, 'latin1');
      expect(detail(writeFailure(copy)), owner).to.equal('typed ethereum owner is not a 0x address');
    }
  });
});
