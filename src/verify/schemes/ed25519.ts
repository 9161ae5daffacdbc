import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { indexToType, SIG_CONFIG, SignatureConfig } from 'arbundles';
import { settles, type SignatureScheme } from './scheme.js';
import { isSmallOrderEd25519Key } from './smallOrder.js';

/**
 * Types 2 (ed25519), 4 (solana, signing the hex of the message) and 5 (injected aptos, signing an
 * "APTOS" envelope around it). Verification is arbundles' own (@noble/ed25519): node:crypto's
 * ed25519 is faster but not the same predicate (noble verifies cofactored and accepts
 * non-canonical point encodings), and none of these types is on the hot path.
 */

const sha256url = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');

function ed25519Family(signatureType: SignatureConfig, nativeAddress: (owner: Buffer) => string): SignatureScheme {
  const library = indexToType[signatureType];
  if (!library) throw new Error(`arbundles has no signer for type ${signatureType}`);
  return {
    signatureType,
    signatureLength: SIG_CONFIG[signatureType].sigLength,
    ownerLength: SIG_CONFIG[signatureType].pubLength,
    // a small-order owner verifies a forged signature on any content (smallOrder.ts)
    checkHeader: (_signature, owner) => (isSmallOrderEd25519Key(owner) ? 'ed25519 owner is a small-order point' : undefined),
    verify: (owner, message, signature) => settles(() => library.verify(owner, message, signature)),
    nativeAddress,
  };
}

const base58 = (owner: Buffer): string => bs58.encode(owner);

export const ed25519Scheme = ed25519Family(SignatureConfig.ED25519, base58);
export const solanaScheme = ed25519Family(SignatureConfig.SOLANA, base58);
export const injectedAptosScheme = ed25519Family(SignatureConfig.INJECTEDAPTOS, sha256url);
