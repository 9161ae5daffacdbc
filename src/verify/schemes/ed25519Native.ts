import { createPublicKey, verify } from 'node:crypto';
import { publicKeyCache, PUBLIC_KEYS_KEPT } from './publicKeys.js';

/**
 * Ed25519 through node:crypto (OpenSSL), as a fast path in front of arbundles' own check
 * (@noble/ed25519 1.7.5, pure JS, 10 to 30 times slower: scripts/bench/ed25519-verify.ts). The two
 * are not the same predicate, so an item is accepted when OpenSSL accepts it, and otherwise exactly
 * when noble does; that is noble's verdict on every input because OpenSSL never accepts what noble
 * refuses (test/verify/ed25519Native.unit.test.ts checks it on the edge cases below). From the code of
 * each (noble `verify` in lib/index.js; OpenSSL 3.0 `ossl_ed25519_verify` in crypto/ec/curve25519.c),
 * for a signature R ‖ S by the key A over M:
 *
 * noble:   S must be below the group order L (it throws otherwise). A and R decode leniently: y is
 *          the low 255 bits read modulo p (y >= p accepted), x is the root the sign bit picks, x = 0
 *          with the sign bit set accepted; off-curve throws. k = SHA-512(enc R ‖ enc A ‖ M) mod L,
 *          where enc re-encodes the decoded point: its y as given and the parity of its x, which are
 *          the bytes given except for x = 0 with the sign bit set. Accepts when
 *          [8](R + kA - SB) is the identity: cofactored, so torsion components are ignored.
 * OpenSSL: S must be below L. A decodes as in noble (y modulo p, x = 0 with the sign bit accepted).
 *          k = SHA-512(R bytes ‖ A bytes ‖ M) mod L over the bytes as given. Accepts when the
 *          canonical encoding of SB - kA equals the 32 bytes of R: cofactorless, and R must be
 *          canonically encoded.
 *
 * So when OpenSSL accepts: S < L, A is the same point for both, and the R bytes are the canonical
 * encoding of R = SB - kA, which noble decodes to that point and re-encodes to the same bytes. If
 * A's x is not 0, noble hashes the same bytes, gets the same k, and R + kA - SB is the identity
 * already. If it is 0, A is (0, 1) or (0, -1), of order 1 or 2: noble's k may differ, but any
 * multiple of A vanishes under [8]. Either way noble accepts: no pre-check is needed for the
 * subset (the small-order owner check in checkHeader is about what noble itself accepts).
 *
 * What only noble accepts, so only these items pay for it: R or A with a small-order (torsion)
 * component, R encoded non-canonically (y >= p, or x = 0 with the sign bit). An honest signer's
 * R is [r]B for a hashed r, so a genuine item never takes the slow path; invalid items do, after
 * OpenSSL refused them, as every item did before.
 *
 * OpenSSL runs on the libuv thread pool: the event loop only imports the key, once per owner
 * (publicKeys.ts).
 */
const owners = publicKeyCache(PUBLIC_KEYS_KEPT, (x) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }));

export function opensslVerifies(publicKey: Buffer, signedBytes: Buffer, signature: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const key = owners.of(publicKey);
      verify(null, signedBytes, key, signature, (error, valid) => resolve(!error && valid));
    } catch {
      // a key or signature OpenSSL will not take: noble decides
      resolve(false);
    }
  });
}

/** OpenSSL first, and where it refuses, `slowPath` (arbundles' verifier, whose verdict is kept) */
export function withOpensslFirst(
  signedBytes: (message: Buffer) => Buffer,
  slowPath: (owner: Buffer, message: Buffer, signature: Buffer) => Promise<boolean>,
): (owner: Buffer, message: Buffer, signature: Buffer) => Promise<boolean> {
  return async (owner, message, signature) => (await opensslVerifies(owner, signedBytes(message), signature)) || slowPath(owner, message, signature);
}
