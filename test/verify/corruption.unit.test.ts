import { expect } from 'chai';
import type { DataItem, Signer } from 'arbundles';
import { InvalidDataItem } from '../../src/domain/errors.js';
import { signedItem } from './support/items.js';
import { failureOf } from './support/outcome.js';
import { signers, type SignerName } from './support/signers.js';

/**
 * Every byte of an item is either signed or fixed by the signed bytes, so any damage must be
 * refused: truncation anywhere, and any single flipped bit, header, signature or payload.
 */

const SMALL_ITEM_OPTIONS = {
  tags: [
    { name: 'Content-Type', value: 'text/plain' },
    { name: 'App-Name', value: 'verify-test' },
  ],
  // a present target and an absent anchor, so both presence bytes get flipped both ways
  target: Buffer.alloc(32, 7).toString('base64url'),
};

async function rejectedAll(variants: Iterable<[string, Buffer]>): Promise<string[]> {
  const accepted: string[] = [];
  for (const [label, bytes] of variants) {
    const error = await failureOf([bytes]);
    if (!(error instanceof InvalidDataItem)) accepted.push(`${label}: ${String(error)}`);
  }
  return accepted;
}

function* truncations(raw: Buffer): Generator<[string, Buffer]> {
  for (let length = 0; length < raw.length; length++) yield [`first ${length} bytes`, raw.subarray(0, length)];
}

function* bitFlips(raw: Buffer): Generator<[string, Buffer]> {
  for (let byte = 0; byte < raw.length; byte++) {
    for (let bit = 0; bit < 8; bit++) {
      const copy = Buffer.from(raw);
      copy[byte] = (copy[byte] as number) ^ (1 << bit);
      yield [`byte ${byte} bit ${bit}`, copy];
    }
  }
}

describe('data item verifier on damaged items', () => {
  let all: Record<SignerName, Signer>;
  const items = new Map<SignerName, DataItem>();
  before(async () => {
    all = await signers();
    for (const name of ['arweave', 'ethereum', 'typedEthereum', 'ed25519'] as const) {
      items.set(name, await signedItem(all[name], 'small payload', SMALL_ITEM_OPTIONS));
    }
  });

  const rawOf = (name: SignerName): Buffer => {
    const item = items.get(name);
    if (!item) throw new Error(`no ${name} item`);
    return item.getRaw();
  };

  for (const name of ['arweave', 'ethereum', 'typedEthereum', 'ed25519'] as const) {
    it(`rejects every truncation of a small ${name} item`, async () => {
      const raw = rawOf(name);
      expect(await failureOf([raw])).to.match(/^accepted as /);
      expect(await rejectedAll(truncations(raw))).to.deep.equal([]);
    });

    it(`rejects every single flipped bit of a small ${name} item`, async () => {
      expect(await rejectedAll(bitFlips(rawOf(name)))).to.deep.equal([]);
    });
  }

  it('says a header cut short is truncated', async () => {
    const raw = rawOf('arweave');
    const error = await failureOf([raw.subarray(0, 600)]);
    expect(error).to.be.instanceOf(InvalidDataItem);
    expect((error as InvalidDataItem).detail).to.equal('truncated: 600 bytes end inside the header');
  });

  it('rejects an empty body', async () => {
    const error = await failureOf([]);
    expect(error).to.be.instanceOf(InvalidDataItem);
    expect((error as InvalidDataItem).detail).to.equal('truncated: 0 bytes end inside the header');
  });

  it('rejects a payload cut short with a signature that does not verify', async () => {
    const raw = rawOf('arweave');
    const error = await failureOf([raw.subarray(0, raw.length - 1)]);
    expect((error as InvalidDataItem).detail).to.equal('signature of type 1 does not verify');
  });

  it('rejects one byte appended to the payload', async () => {
    const raw = rawOf('ethereum');
    const error = await failureOf([raw, Buffer.from([0])]);
    expect((error as InvalidDataItem).detail).to.equal('signature of type 3 does not verify');
  });
});
