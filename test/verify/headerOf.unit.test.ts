import { expect } from 'chai';
import type { Signer } from 'arbundles';
import { createDataItemVerifier, headerOf } from '../../src/verify/index.js';
import { randomBytes, randomInt, randomItemOptions, signedItem } from './support/items.js';
import { seededRandom } from '../support/seededRandom.js';
import { signers } from './support/signers.js';

/** the header the verifier finds in `raw` */
function verifiersHeader(raw: Uint8Array) {
  const verifier = createDataItemVerifier({ maxSize: Number.MAX_SAFE_INTEGER });
  verifier.write(raw);
  return verifier.header;
}

describe('headerOf: an item header parsed from its first bytes, without the signed hashes', () => {
  let all: Record<string, Signer>;
  before(async () => {
    all = await signers();
  });

  for (const name of ['arweave', 'ed25519', 'ethereum', 'solana', 'multiAptos', 'typedEthereum'] as const) {
    it(`gives the verifier's header for random ${name} items, from the whole item or its header alone`, async () => {
      const random = seededRandom(name.length * 31 + 7);
      for (let i = 0; i < 8; i++) {
        const item = await signedItem(all[name]!, randomBytes(random, randomInt(random, 0, 3000)), randomItemOptions(random));
        const raw = item.getRaw();
        const expected = verifiersHeader(raw);
        expect(expected, `case ${i}`).not.to.equal(undefined);
        expect(headerOf(raw), `case ${i}, whole item`).to.deep.equal(expected);
        expect(headerOf(raw.subarray(0, expected!.payloadDataStart)), `case ${i}, header bytes only`).to.deep.equal(expected);
        expect(expected!.id).to.equal(item.id);
      }
    });
  }

  it('is undefined for bytes that end inside the header, and for a header the verifier refuses', async () => {
    const item = await signedItem(all.arweave!, Buffer.from('payload'), { tags: [{ name: 'Content-Type', value: 'text/plain' }] });
    const raw = Buffer.from(item.getRaw());
    const start = verifiersHeader(raw)!.payloadDataStart;
    expect(headerOf(raw.subarray(0, start - 1))).to.equal(undefined);
    const unknownType = Buffer.from(raw);
    unknownType.writeUInt16LE(999, 0);
    expect(headerOf(unknownType)).to.equal(undefined);
  });
});
