import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { CURVE, ExtendedPoint, getPublicKey, Point } from '@noble/ed25519';
import { DataItem } from 'arbundles';
import { InvalidDataItem } from '../../src/domain/errors.js';
import { isSmallOrderEd25519Key } from '../../src/verify/schemes/smallOrder.js';
import { assemble } from '../verify/support/assemble.js';
import { failureOf } from '../verify/support/outcome.js';

/**
 * Found by the verifier fuzzer: an ed25519 owner of small order (the all-zero key, the identity,
 * any of the 8 torsion points in any encoding) "verifies" the signature R = identity, s = 0 over
 * any content under the cofactored check arbundles uses. Such items share one signature, so one
 * id, whatever their content; the verifier must refuse them although arbundles accepts them.
 */

const P = 2n ** 255n - 19n;
const le32 = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse();
const withSign = (key: Buffer): Buffer => {
  const copy = Buffer.from(key);
  copy[31] = (copy[31] as number) | 0x80;
  return copy;
};

/** the 8 torsion points, found as [l]Q of random points Q, then every other encoding of each */
function smallOrderEncodings(): Buffer[] {
  const found = new Map<string, Point>();
  while (found.size < 8) {
    let q: Point;
    try {
      q = Point.fromHex(randomBytes(32), false);
    } catch {
      continue;
    }
    const e = ExtendedPoint.fromAffine(q);
    // multiplyUnsafe refuses l itself: (l - 1)Q + Q
    const t = e
      .multiplyUnsafe(CURVE.l - 1n)
      .add(e)
      .toAffine();
    found.set(`${t.x}:${t.y}`, t);
  }
  const encodings: Buffer[] = [];
  for (const point of found.values()) {
    const canonical = Buffer.from(point.toRawBytes());
    encodings.push(canonical, withSign(canonical));
    // y + p still fits in 255 bits for y = 0 and y = 1: non-canonical encodings of the same points
    if (point.y < 19n) encodings.push(le32(point.y + P), withSign(le32(point.y + P)));
  }
  return encodings;
}

const IDENTITY = le32(1n);
/** R = identity, s = 0: what verifies over anything for a small-order key */
const FORGED_SIGNATURE = Buffer.concat([IDENTITY, Buffer.alloc(32)]);

function forgedItem(signatureType: number, owner: Buffer, signature: Buffer, payload: string): Buffer {
  const bytes = assemble({ signatureType, owner, signatureLength: signature.length, tagCount: 0, rawTags: Buffer.alloc(0), payload: Buffer.from(payload) });
  signature.copy(bytes, 2);
  return bytes;
}

describe('bad input: small-order ed25519 keys', () => {
  const encodings = smallOrderEncodings();

  it('knows every encoding of every small-order point, as noble sees them', () => {
    expect(encodings.length).to.equal(22);
    for (const key of encodings) {
      expect(isSmallOrderEd25519Key(key), key.toString('hex')).to.equal(true);
      expect(ExtendedPoint.fromAffine(Point.fromHex(key, false)).isSmallOrder(), key.toString('hex')).to.equal(true);
    }
  });

  it('takes no real public key for one', async () => {
    for (let i = 0; i < 200; i++) {
      const key = Buffer.from(await getPublicKey(randomBytes(32)));
      expect(isSmallOrderEd25519Key(key), key.toString('hex')).to.equal(false);
    }
  });

  for (const [name, type] of [
    ['ed25519', 2],
    ['solana', 4],
    ['injected aptos', 5],
  ] as const) {
    it(`refuses ${name} items forged for a small-order owner, which arbundles accepts`, async () => {
      for (const owner of encodings) {
        for (const payload of ['one content', 'another content']) {
          const bytes = forgedItem(type, owner, FORGED_SIGNATURE, payload);
          const label = `${owner.toString('hex')} ${payload}`;
          // arbundles reads a non-canonical y as the point it names (noble, zip215), so all 22 verify
          expect(await DataItem.verify(bytes), label).to.equal(true);
          const error = await failureOf([bytes]);
          expect(error, label).to.be.instanceOf(InvalidDataItem);
          expect((error as InvalidDataItem).detail).to.equal('ed25519 owner is a small-order point');
        }
      }
    });
  }

  it('refuses a multi-aptos item whose marked slots hold small-order keys, which arbundles accepts', async () => {
    const owner = Buffer.alloc(1025);
    IDENTITY.copy(owner, 0);
    le32(P - 1n).copy(owner, 32);
    owner.write('2', 1024, 'latin1');
    const signature = Buffer.alloc(2052);
    FORGED_SIGNATURE.copy(signature, 0);
    FORGED_SIGNATURE.copy(signature, 64);
    signature[2048] = 0b1100_0000;
    const bytes = forgedItem(6, owner, signature, 'anything at all');
    expect(await DataItem.verify(bytes)).to.equal(true);
    const error = await failureOf([bytes]);
    expect(error).to.be.instanceOf(InvalidDataItem);
    expect((error as InvalidDataItem).detail).to.equal('multi-aptos signature slot 0 is marked but its key is a small-order point');
  });
});
