import { expect } from 'chai';
import { DataItem, type Signer } from 'arbundles';
import { InvalidDataItem } from '../../src/domain/errors.js';
import { assembledFor } from './support/assemble.js';
import { signedItem } from './support/items.js';
import { failureOf } from './support/outcome.js';
import { multiAptosSigner, signers, type SignerName } from './support/signers.js';

/**
 * Items that arbundles' DataItem.verify accepts but that are malleable copies of a signed item
 * (another id for the same content, charged again to the same owner), or that nobody signed.
 */

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

async function expectRefusedThoughArbundlesAccepts(bytes: Buffer, detail: string): Promise<void> {
  expect(await DataItem.verify(bytes), 'arbundles accepts it').to.equal(true);
  const error = await failureOf([bytes]);
  expect(error).to.be.instanceOf(InvalidDataItem);
  expect((error as InvalidDataItem).detail).to.equal(detail);
}

function withV(raw: Buffer, v: number): Buffer {
  const copy = Buffer.from(raw);
  copy[2 + 64] = v;
  return copy;
}

/** (r, n - s) with the other v: the same signature's high-s twin */
function highSTwin(raw: Buffer): Buffer {
  const copy = Buffer.from(raw);
  const s = BigInt(`0x${copy.toString('hex', 2 + 32, 2 + 64)}`);
  Buffer.from((SECP256K1_N - s).toString(16).padStart(64, '0'), 'hex').copy(copy, 2 + 32);
  copy[2 + 64] = copy[2 + 64] === 27 ? 28 : 27;
  return copy;
}

describe('data item verifier, stricter than arbundles', () => {
  let all: Record<SignerName, Signer>;
  before(async () => {
    all = await signers();
  });

  it('refuses an ethereum signature whose v byte is anything but 27 or 28', async () => {
    const raw = (await signedItem(all.ethereum, 'x')).getRaw();
    for (const v of [0, 1, 26, 29, 59, 255]) {
      await expectRefusedThoughArbundlesAccepts(withV(raw, v), `ecdsa v is ${v}, expected 27 or 28`);
    }
  });

  it('refuses an ethereum signature whose v recovers another key', async () => {
    const raw = (await signedItem(all.ethereum, 'x')).getRaw();
    await expectRefusedThoughArbundlesAccepts(withV(raw, raw[66] === 27 ? 28 : 27), 'signature of type 3 does not verify');
  });

  it('refuses a typed ethereum signature with v 0, 1 or 59, which ethers reads as 27 or 28', async () => {
    const raw = (await signedItem(all.typedEthereum, 'x')).getRaw();
    const parity = raw[66] === 27 ? 0 : 1;
    for (const v of [parity, 59 + parity]) {
      await expectRefusedThoughArbundlesAccepts(withV(raw, v), `ecdsa v is ${v}, expected 27 or 28`);
    }
  });

  it('refuses the high-s twin of a typed ethereum signature', async () => {
    const raw = (await signedItem(all.typedEthereum, 'x')).getRaw();
    await expectRefusedThoughArbundlesAccepts(highSTwin(raw), 'ecdsa s not in the lower half of the group order');
  });

  it('refuses a multi-aptos item with no signature at all', async () => {
    const item = await signedItem(await multiAptosSigner([]), 'unsigned');
    await expectRefusedThoughArbundlesAccepts(item.getRaw(), 'multi-aptos has 0 signatures, threshold 2');
  });

  it('refuses a multi-aptos item signed by fewer keys than its threshold', async () => {
    const item = await signedItem(await multiAptosSigner([1]), 'one of two');
    await expectRefusedThoughArbundlesAccepts(item.getRaw(), 'multi-aptos has 1 signatures, threshold 2');
  });

  it('refuses bytes in an unmarked multi-aptos signature slot', async () => {
    const raw = Buffer.from((await signedItem(all.multiAptos, 'x')).getRaw());
    raw[2 + 64 + 10] = 1; // slot 1: the default signer marks 0 and 2
    await expectRefusedThoughArbundlesAccepts(raw, 'multi-aptos signature slot 1 is unmarked but not empty');
  });

  it('refuses a multi-aptos threshold that is not an ASCII digit', async () => {
    const item = await signedItem(await multiAptosSigner([0, 2], '\u0002'), 'x');
    await expectRefusedThoughArbundlesAccepts(item.getRaw(), 'multi-aptos threshold byte 2 is not a digit 1..9');
  });

  it('refuses a multi-aptos signature marked for a slot with no key, before the payload', async () => {
    const raw = Buffer.from((await signedItem(all.multiAptos, 'x')).getRaw());
    raw[2 + 2048] = (raw[2 + 2048] as number) | 0x04; // mark slot 5, beyond the three keys
    raw.fill(9, 2 + 5 * 64, 2 + 6 * 64);
    const error = await failureOf([raw.subarray(0, 2 + 2052 + 1025)]);
    expect((error as InvalidDataItem).detail).to.equal('multi-aptos signature slot 5 is marked but has no key');
  });

  it('refuses signed tags split over two Avro blocks', async () => {
    const rawTags = Buffer.from([2, 2, 0x61, 2, 0x62, 2, 2, 0x63, 2, 0x64, 0]);
    const item = await assembledFor(all.ed25519, { tagCount: 2, rawTags, payload: Buffer.from('x') });
    await expectRefusedThoughArbundlesAccepts(item.getRaw(), 'tag block holds 1 tags, header declares 2');
  });

  it('accepts a signed tag with an empty value, as arbundles does, and refuses it under strict tag rules', async () => {
    const item = await signedItem(all.ed25519, 'x', { tags: [{ name: 'a', value: '' }] });
    expect(await DataItem.verify(item.getRaw())).to.equal(true);
    expect(await failureOf([item.getRaw()])).to.equal(`accepted as ${item.id}`);
    const strict = await failureOf([item.getRaw()], undefined, true);
    expect((strict as InvalidDataItem).detail).to.equal('tag value of 0 bytes, expected 1..3072');
  });

  it('refuses a signed item with no tags but an Avro empty array as tag bytes', async () => {
    const item = await assembledFor(all.ed25519, { tagCount: 0, rawTags: Buffer.from([0]), payload: Buffer.from('x') });
    await expectRefusedThoughArbundlesAccepts(item.getRaw(), '0 tags declared in 1 tag bytes');
  });
});
