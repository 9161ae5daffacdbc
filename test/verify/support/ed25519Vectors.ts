import { createHash } from 'node:crypto';
import { CURVE, ExtendedPoint, Point, utils } from '@noble/ed25519';

/**
 * Ed25519 signatures built by hand with @noble/ed25519's point arithmetic, for the cases where
 * noble (arbundles' verifier: cofactored, lenient decoding) and OpenSSL (cofactorless, canonical R)
 * can part: torsion components, non-canonical encodings, the identity, S past the group order.
 */

export const L = CURVE.l;
export const P = CURVE.P;

export const le32 = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse();
const fromLe = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
const mod = (n: bigint, m: bigint): bigint => ((n % m) + m) % m;
/** a scalar from a label, so that every vector is the same on every run */
export const scalar = (label: string): bigint => mod(fromLe(createHash('sha512').update(label).digest()), L);

export const enc = (point: ExtendedPoint): Buffer => Buffer.from(point.toAffine().toRawBytes());
export const withSignBit = (bytes: Buffer): Buffer => {
  const copy = Buffer.from(bytes);
  copy[31] = (copy[31] as number) | 0x80;
  return copy;
};

export const B = ExtendedPoint.BASE;
export const IDENTITY = ExtendedPoint.ZERO;
/** a point of order 8 (noble's TORSION_SUBGROUP lists the eight) */
export const T8 = ExtendedPoint.fromAffine(Point.fromHex(utils.TORSION_SUBGROUP[1] as string));
/** a point of order 4: y = 0, so y + p (still below 2^255) encodes it too */
export const T4 = T8.double();

/** k = SHA-512(R ‖ A ‖ M) mod L over the bytes given */
export const challenge = (rBytes: Buffer, aBytes: Buffer, signed: Buffer): bigint =>
  mod(fromLe(createHash('sha512').update(rBytes).update(aBytes).update(signed).digest()), L);

export interface Vector {
  name: string;
  owner: Buffer;
  signature: Buffer;
  /** arbundles' verdict today (noble), asserted, not computed */
  arbundles: boolean;
  /** what OpenSSL alone says: true means the fast path settles it */
  openssl: boolean;
  /** refused before verification by the scheme's checkHeader (a small-order owner) */
  smallOrderOwner?: boolean;
}

/**
 * The edge vectors over `signed` (the bytes the type's signer signs), for the key a·B. Each
 * states the verdict of arbundles and of OpenSSL; the scheme must follow arbundles on every one.
 */
export function edgeVectors(signed: Buffer, other: Buffer): Vector[] {
  const a = scalar('owner');
  const A = B.multiply(a);
  const aBytes = enc(A);
  const sig = (rBytes: Buffer, s: bigint) => Buffer.concat([rBytes, le32(s)]);
  /** S = r + k·a: signs with R's prime-order part r·B, whatever else R holds */
  const sign = (rBytes: Buffer, r: bigint, ownerBytes = aBytes, hashedR = rBytes) => sig(rBytes, mod(r + challenge(hashedR, ownerBytes, signed) * a, L));

  const r = scalar('nonce');
  const R = B.multiply(r);
  const genuine = sign(enc(R), r);
  const s = fromLe(genuine.subarray(32));

  // A with an order-8 component: the signer knows a; cofactorless passes only when 8 divides k
  const mixedA = enc(A.add(T8));
  const mixedANonce = (wantDivisible: boolean): bigint => {
    for (let i = 0; ; i++) {
      const n = scalar(`mixed-A nonce ${i}`);
      if ((challenge(enc(B.multiply(n)), mixedA, signed) % 8n === 0n) === wantDivisible) return n;
    }
  };
  const signMixedA = (n: bigint) => sign(enc(B.multiply(n)), n, mixedA);

  const identity = enc(IDENTITY);
  const identityPlusP = le32(1n + P);
  const t4 = enc(T4);
  const t4PlusP = Buffer.from(le32(P));
  t4PlusP[31] = (t4PlusP[31] as number) | ((t4[31] as number) & 0x80);

  const vectors: Vector[] = [
    { name: 'a genuine signature', owner: aBytes, signature: genuine, arbundles: true, openssl: true },
    { name: 'a genuine signature over the bytes another type signs', owner: aBytes, signature: sigOver(other), arbundles: false, openssl: false },
    { name: 'non-canonical S (S + L)', owner: aBytes, signature: sig(enc(R), s + L), arbundles: false, openssl: false },
    { name: 'S + 8L, past 2^255', owner: aBytes, signature: sig(enc(R), s + 8n * L), arbundles: false, openssl: false },
    { name: 'a flipped bit of S', owner: aBytes, signature: sig(enc(R), s ^ 4n), arbundles: false, openssl: false },
    { name: 'R off the curve', owner: aBytes, signature: sig(le32(2n), s), arbundles: false, openssl: false },
    // R = 0·B: a legal, if odd, signature; canonical, so both take it
    { name: 'R the identity (canonical)', owner: aBytes, signature: sign(identity, 0n), arbundles: true, openssl: true },
    // noble re-encodes R before hashing: x = 0 drops the sign bit
    {
      name: 'R the identity with the sign bit set, hashed as noble re-encodes it',
      owner: aBytes,
      signature: sign(withSignBit(identity), 0n, aBytes, identity),
      arbundles: true,
      openssl: false,
    },
    {
      name: 'R the identity with the sign bit set, hashed as given',
      owner: aBytes,
      signature: sign(withSignBit(identity), 0n),
      arbundles: false,
      openssl: false,
    },
    { name: 'R the identity encoded as y = p + 1', owner: aBytes, signature: sign(identityPlusP, 0n), arbundles: true, openssl: false },
    { name: 'small-order R (order 8)', owner: aBytes, signature: sign(enc(T8), 0n), arbundles: true, openssl: false },
    { name: 'small-order R (order 4) encoded as y = p', owner: aBytes, signature: sign(t4PlusP, 0n), arbundles: true, openssl: false },
    { name: 'mixed-order R (r·B + an order-8 point)', owner: aBytes, signature: sign(enc(R.add(T8)), r), arbundles: true, openssl: false },
    { name: 'mixed-order A, k not a multiple of 8', owner: mixedA, signature: signMixedA(mixedANonce(false)), arbundles: true, openssl: false },
    { name: 'mixed-order A, k a multiple of 8', owner: mixedA, signature: signMixedA(mixedANonce(true)), arbundles: true, openssl: true },
    { name: 'A off the curve', owner: le32(2n), signature: genuine, arbundles: false, openssl: false },
  ];

  // A non-canonical A (y >= p) that is not small order has no known discrete log: nobody can sign for it
  for (let y = 2n; y < 19n; y++) {
    let onCurve = true;
    try {
      Point.fromHex(le32(y));
    } catch {
      onCurve = false;
    }
    vectors.push({
      name: `A encoded as y = p + ${y} (${onCurve ? 'on' : 'off'} the curve)`,
      owner: le32(y + P),
      signature: genuine,
      arbundles: false,
      openssl: false,
    });
  }

  // small-order owners: noble takes R = identity, S = 0 for any content (checkHeader refuses them first)
  const forged = sig(identity, 0n);
  const smallOrder = (name: string, owner: Buffer, openssl: boolean): Vector => ({
    name,
    owner,
    signature: forged,
    arbundles: true,
    openssl,
    smallOrderOwner: true,
  });
  vectors.push(
    smallOrder('A the identity', identity, true),
    smallOrder('A the identity with the sign bit set (noble hashes it without)', withSignBit(identity), true),
    smallOrder('A the identity encoded as y = p + 1', identityPlusP, true),
    smallOrder('A all zero (order 4)', Buffer.alloc(32), challenge(identity, Buffer.alloc(32), signed) % 4n === 0n),
    smallOrder('A of order 8', enc(T8), challenge(identity, enc(T8), signed) % 8n === 0n),
  );
  return vectors;

  /** the genuine signature, made over other bytes */
  function sigOver(bytes: Buffer): Buffer {
    return sig(enc(R), mod(r + challenge(enc(R), aBytes, bytes) * a, L));
  }
}
