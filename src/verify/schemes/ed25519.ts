import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { indexToType, SIG_CONFIG, SignatureConfig } from 'arbundles';
import { withOpensslFirst } from './ed25519Native.js';
import { settles, type SignatureScheme } from './scheme.js';
import { isSmallOrderEd25519Key } from './smallOrder.js';

/**
 * Types 2 (ed25519), 4 (solana, signing the hex of the message) and 5 (injected aptos, signing an
 * "APTOS" envelope around it). The verdict is arbundles' own (@noble/ed25519), reached through
 * OpenSSL first: OpenSSL accepts a subset of what noble accepts, so only what it refuses goes on
 * to noble (ed25519Native.ts has the reasoning). For that, OpenSSL must check the very bytes
 * arbundles hands to noble for each type: `signedBytes` below.
 */

const sha256url = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');

/** what each type's arbundles signer signs, given the item's deep hash */
export const signedBytes: Readonly<Record<number, (message: Buffer) => Buffer>> = {
  [SignatureConfig.ED25519]: (message) => message,
  // HexInjectedSolanaSigner
  [SignatureConfig.SOLANA]: (message) => Buffer.from(message.toString('hex')),
  // InjectedAptosSigner
  [SignatureConfig.INJECTEDAPTOS]: (message) => Buffer.from(`APTOS\nmessage: ${message.toString('hex')}\nnonce: bundlr`),
};

function ed25519Family(signatureType: SignatureConfig, nativeAddress: (owner: Buffer) => string): SignatureScheme {
  const library = indexToType[signatureType];
  const signed = signedBytes[signatureType];
  if (!library || !signed) throw new Error(`arbundles has no ed25519 signer for type ${signatureType}`);
  return {
    signatureType,
    signatureLength: SIG_CONFIG[signatureType].sigLength,
    ownerLength: SIG_CONFIG[signatureType].pubLength,
    // a small-order owner verifies a forged signature on any content (smallOrder.ts)
    checkHeader: (_signature, owner) => (isSmallOrderEd25519Key(owner) ? 'ed25519 owner is a small-order point' : undefined),
    verify: withOpensslFirst(signed, (owner, message, signature) => settles(() => library.verify(owner, message, signature))),
    nativeAddress,
  };
}

const base58 = (owner: Buffer): string => bs58.encode(owner);

export const ed25519Scheme = ed25519Family(SignatureConfig.ED25519, base58);
export const solanaScheme = ed25519Family(SignatureConfig.SOLANA, base58);
export const injectedAptosScheme = ed25519Family(SignatureConfig.INJECTEDAPTOS, sha256url);
