import { constants, createHash, createPublicKey, verify } from 'node:crypto';
import { SIG_CONFIG, SignatureConfig } from 'arbundles';
import { publicKeyCache, PUBLIC_KEYS_KEPT } from './publicKeys.js';
import { settles, type SignatureScheme } from './scheme.js';

/**
 * Type 1, RSA-4096 PSS over SHA-256 with public exponent 65537, the hot path. arbundles builds a
 * PEM from the modulus and calls createVerify with PSS padding and the default salt length, which
 * for verification is "auto" (any salt length: arweave-js signs with 32 bytes, Node with the
 * maximum). This is the same OpenSSL check without the PEM round trip, and run on the libuv
 * thread pool so several items verify in parallel off the event loop; the owners' keys are
 * imported once each (publicKeys.ts).
 */

const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO } as const;

const owners = publicKeyCache(PUBLIC_KEYS_KEPT, (n) => createPublicKey({ key: { kty: 'RSA', n, e: 'AQAB' }, format: 'jwk' }));

function verifyPss(owner: Buffer, message: Buffer, signature: Buffer): Promise<boolean> {
  const key = owners.of(owner);
  return new Promise((resolve, reject) => {
    verify('sha256', message, { key, ...PSS }, signature, (error, valid) => (error ? reject(error) : resolve(valid)));
  });
}

export const arweaveScheme: SignatureScheme = {
  signatureType: SignatureConfig.ARWEAVE,
  signatureLength: SIG_CONFIG[SignatureConfig.ARWEAVE].sigLength,
  ownerLength: SIG_CONFIG[SignatureConfig.ARWEAVE].pubLength,
  checkHeader: () => undefined,
  verify: (owner, message, signature) => settles(() => verifyPss(owner, message, signature)),
  nativeAddress: (owner) => createHash('sha256').update(owner).digest('base64url'),
};
