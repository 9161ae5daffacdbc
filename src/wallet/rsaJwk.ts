import { createPrivateKey, createPublicKey, generateKeyPair, sign, verify, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

// A type alias, not an interface: node:crypto's JsonWebKey wants an index signature.
/** An RSA private key as a JWK (RFC 7517), the format Arweave wallets are stored in. */
export type RsaPrivateJwk = {
  kty: 'RSA';
  n: string;
  e: string;
  d: string;
  p: string;
  q: string;
  dp: string;
  dq: string;
  qi: string;
};

/** Arweave owners are 512-byte moduli: a bundle or receipt signed by a smaller key is not accepted upstream. */
export const ARWEAVE_MODULUS_BITS = 4096;

const PRIVATE_FIELDS = ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export async function generateRsaJwk(): Promise<RsaPrivateJwk> {
  const { privateKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: ARWEAVE_MODULUS_BITS,
    publicExponent: 65537,
  });
  return parseRsaJwk(privateKey.export({ format: 'jwk' }));
}

/**
 * Checks that `value` is a usable 4096-bit RSA private JWK and returns only its key fields.
 * Throws an Error whose message says what is wrong (the caller adds where the value came from).
 */
export function parseRsaJwk(value: unknown): RsaPrivateJwk {
  if (typeof value !== 'object' || value === null) throw new Error('not a JSON object');
  const fields = value as Record<string, unknown>;
  if (fields['kty'] !== 'RSA') throw new Error(`kty is ${JSON.stringify(fields['kty'])}, not "RSA"`);
  for (const name of PRIVATE_FIELDS) {
    const field = fields[name];
    if (typeof field !== 'string' || !BASE64URL.test(field)) {
      throw new Error(`field "${name}" is missing or not base64url`);
    }
  }
  const jwk = Object.fromEntries([['kty', 'RSA'], ...PRIVATE_FIELDS.map((k) => [k, fields[k]])]) as RsaPrivateJwk;
  assertUsable(jwk);
  return jwk;
}

function assertUsable(jwk: RsaPrivateJwk): void {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  } catch (error) {
    throw new Error(`not a valid RSA private key (${(error as Error).message})`);
  }
  const bits = privateKey.asymmetricKeyDetails?.modulusLength;
  if (bits !== ARWEAVE_MODULUS_BITS) {
    throw new Error(`modulus is ${String(bits)} bits, Arweave wallets are ${ARWEAVE_MODULUS_BITS}`);
  }
  // A private part that does not belong to `n` would sign receipts nobody can verify: find out now.
  const probe = Buffer.from('wallet self-test');
  const publicKey = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
  if (!verify('sha256', probe, publicKey, sign('sha256', probe, privateKey))) {
    throw new Error('the private fields do not match the modulus n');
  }
}
