import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { DataItem, indexToType } from 'arbundles';
import { schemeFor } from '../../src/verify/schemes/index.js';
import { signedBytes } from '../../src/verify/schemes/ed25519.js';
import { opensslVerifies } from '../../src/verify/schemes/ed25519Native.js';
import { assemble } from './support/assemble.js';
import { B, challenge, edgeVectors, enc, L, le32, T4, T8 } from './support/ed25519Vectors.js';
import { failureOf } from './support/outcome.js';
import { ExtendedPoint, Point, utils } from '@noble/ed25519';

/**
 * The ed25519 types verify with OpenSSL first and fall back to arbundles (noble) where OpenSSL
 * refuses: the verdict must be arbundles' on every input, and a genuine signature must never need
 * the fallback. Checked on hand-built edge vectors (each verdict stated), on random signatures with
 * random torsion and damage, and end to end on items.
 */

const TYPES = [
  ['ed25519', 2],
  ['solana', 4],
  ['injected aptos', 5],
] as const;
type Ed25519Type = (typeof TYPES)[number][1];

/** the bytes each type's arbundles signer signs for a deep hash, written out from arbundles' code */
const SIGNED: Record<Ed25519Type, (message: Buffer) => Buffer> = {
  2: (message) => message,
  4: (message) => Buffer.from(message.toString('hex')),
  5: (message) => Buffer.from(`APTOS\nmessage: ${message.toString('hex')}\nnonce: bundlr`),
};
/** for each type, the bytes another type would sign: a signature over them must not carry over */
const OTHER: Record<Ed25519Type, Ed25519Type> = { 2: 4, 4: 2, 5: 4 };

const arbundlesVerifies = async (type: Ed25519Type, owner: Buffer, message: Buffer, signature: Buffer): Promise<boolean> => {
  try {
    return (await indexToType[type]!.verify(owner, message, signature)) === true;
  } catch {
    return false;
  }
};
const scheme = (type: Ed25519Type) => schemeFor(type)!;

const MESSAGE = Buffer.from('a deep hash is 48 bytes long: SHA-384 of it all.');

describe('ed25519 types: OpenSSL first, arbundles where OpenSSL refuses', function () {
  this.timeout(120_000);

  it('builds its torsion points of the orders it names', () => {
    expect([T8.multiplyUnsafe(4n).equals(ExtendedPoint.ZERO), T8.multiplyUnsafe(8n).equals(ExtendedPoint.ZERO)]).to.deep.equal([false, true]);
    expect([T4.multiplyUnsafe(2n).equals(ExtendedPoint.ZERO), T4.multiplyUnsafe(4n).equals(ExtendedPoint.ZERO)]).to.deep.equal([false, true]);
    expect(T4.toAffine().y).to.equal(0n);
  });

  const names = edgeVectors(SIGNED[2](MESSAGE), SIGNED[4](MESSAGE)).map((v) => v.name);
  for (const [index, name] of names.entries()) {
    it(`follows arbundles on ${name}`, async () => {
      for (const [, type] of TYPES) {
        const vector = edgeVectors(SIGNED[type](MESSAGE), SIGNED[OTHER[type]](MESSAGE))[index]!;
        const label = `type ${type}: ${vector.name}`;
        expect(await arbundlesVerifies(type, vector.owner, MESSAGE, vector.signature), `${label}, arbundles`).to.equal(vector.arbundles);
        expect(await opensslVerifies(vector.owner, SIGNED[type](MESSAGE), vector.signature), `${label}, OpenSSL alone`).to.equal(vector.openssl);
        expect(await scheme(type).verify(vector.owner, MESSAGE, vector.signature), `${label}, the scheme`).to.equal(vector.arbundles);
        expect(scheme(type).checkHeader(vector.signature, vector.owner), `${label}, checkHeader`).to.equal(
          vector.smallOrderOwner ? 'ed25519 owner is a small-order point' : undefined,
        );
      }
    });
  }

  const torsion = utils.TORSION_SUBGROUP.map((hex) => ExtendedPoint.fromAffine(Point.fromHex(hex)));
  const scalarArb = fc.bigInt({ min: 1n, max: L - 1n });
  type Damage = { kind: 'none' } | { kind: 'flip'; at: number; bit: number } | { kind: 'S+L' } | { kind: 'message'; at: number };
  const damageArb: fc.Arbitrary<Damage> = fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.nat({ max: 95 }), bit: fc.nat({ max: 7 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'S+L' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('message' as const), at: fc.nat({ max: 47 }) }) },
  );

  it('follows arbundles on random signatures with random torsion in R and A, and random damage', async () => {
    let fastPath = 0;
    let fallbackAccepts = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(2, 4, 5),
        scalarArb,
        scalarArb,
        fc.nat({ max: 7 }),
        fc.nat({ max: 7 }),
        fc.uint8Array({ minLength: 48, maxLength: 48 }),
        damageArb,
        async (type: Ed25519Type, a, r, torsionOfA, torsionOfR, messageBytes, damage) => {
          const message = Buffer.from(messageBytes);
          const owner = enc(B.multiply(a).add(torsion[torsionOfA]!));
          const rBytes = enc(B.multiply(r).add(torsion[torsionOfR]!));
          let s = (r + challenge(rBytes, owner, SIGNED[type](message)) * a) % L;
          let signed = message;
          if (damage.kind === 'S+L') s += L;
          if (damage.kind === 'message') signed = Buffer.from(message).fill(message[damage.at]! ^ 1, damage.at, damage.at + 1);
          const both = Buffer.concat([rBytes, le32(s), owner]);
          if (damage.kind === 'flip') both[damage.at] = both[damage.at]! ^ (1 << damage.bit);
          const [signature, key] = [both.subarray(0, 64), both.subarray(64)];

          const expected = await arbundlesVerifies(type, key, signed, signature);
          const openssl = await opensslVerifies(key, SIGNED[type](signed), signature);
          expect(await scheme(type).verify(key, signed, signature)).to.equal(expected);
          expect(!openssl || expected, 'OpenSSL accepted what arbundles refuses').to.equal(true);
          if (expected && !openssl) fallbackAccepts++;
          if (damage.kind === 'none' && torsionOfA === 0 && torsionOfR === 0) {
            expect(openssl, 'a genuine signature needs the fallback').to.equal(true);
            fastPath++;
          }
        },
      ),
      { seed: Number(process.env.FUZZ_SEED ?? 2514), numRuns: 300 },
    );
    // both paths taken: the property says something about each
    expect([fastPath > 0, fallbackAccepts > 0]).to.deep.equal([true, true]);
  });

  it('takes every genuine node:crypto signature on the fast path, and follows arbundles on its bit flips', async () => {
    const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(2, 4, 5),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 48, maxLength: 48 }),
        fc.option(fc.record({ at: fc.nat({ max: 95 }), bit: fc.nat({ max: 7 }) }), { nil: undefined }),
        async (type: Ed25519Type, seed, messageBytes, flip) => {
          const message = Buffer.from(messageBytes);
          const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
          const owner = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url');
          const both = Buffer.concat([sign(null, SIGNED[type](message), privateKey), owner]);
          if (flip) both[flip.at] = both[flip.at]! ^ (1 << flip.bit);
          const [signature, key] = [both.subarray(0, 64), both.subarray(64)];
          const expected = await arbundlesVerifies(type, key, message, signature);
          expect(expected).to.equal(flip === undefined);
          // the scheme hands OpenSSL what the signer signed, or every genuine item would pay the fallback
          expect(signedBytes[type]!(message)).to.deep.equal(SIGNED[type](message));
          expect(await opensslVerifies(key, SIGNED[type](message), signature)).to.equal(expected);
          expect(await scheme(type).verify(key, message, signature)).to.equal(expected);
        },
      ),
      { seed: Number(process.env.FUZZ_SEED ?? 2514), numRuns: 200 },
    );
  });

  for (const [name, type] of TYPES) {
    it(`accepts an item of type ${type} (${name}) whose R has a torsion component, as arbundles does (the fallback, end to end)`, async () => {
      const a = 0x1234567n;
      const owner = enc(B.multiply(a));
      const bytes = assemble({ signatureType: type, owner, signatureLength: 64, tagCount: 0, rawTags: Buffer.alloc(0), payload: Buffer.from('mixed') });
      const message = Buffer.from(await new DataItem(bytes).getSignatureData());
      const r = 0x7654321n;
      const rBytes = enc(B.multiply(r).add(T8));
      Buffer.concat([rBytes, le32((r + challenge(rBytes, owner, SIGNED[type](message)) * a) % L)]).copy(bytes, 2);

      expect(await opensslVerifies(owner, SIGNED[type](message), bytes.subarray(2, 66)), 'OpenSSL alone').to.equal(false);
      expect(await DataItem.verify(bytes), 'arbundles').to.equal(true);
      expect(await failureOf([bytes])).to.equal(`accepted as ${await new DataItem(bytes).id}`);
    });
  }
});
