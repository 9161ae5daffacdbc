import { schemeFor } from './schemes/index.js';

/**
 * The payer's account key for an owner of the given signature type (CONTRACT.md section 5):
 * 1 base64url(sha256(owner)); 3 and 7 the EIP-55 address; 2 and 4 base58 of the public key;
 * 5 and 6 base64url(sha256(owner)). Throws for an unsupported type.
 */
export function nativeAddress(signatureType: number, owner: Uint8Array): string {
  const scheme = schemeFor(signatureType);
  if (!scheme) throw new Error(`unsupported signature type ${signatureType}`);
  if (owner.length !== scheme.ownerLength) throw new Error(`type ${signatureType} owner must be ${scheme.ownerLength} bytes`);
  return scheme.nativeAddress(Buffer.from(owner.buffer, owner.byteOffset, owner.byteLength));
}
