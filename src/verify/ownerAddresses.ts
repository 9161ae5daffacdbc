import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { SignatureConfig } from 'arbundles';
import { schemeFor } from './schemes/index.js';
import { signingKeys } from './schemes/multiAptos.js';
import type { VerifiedHeader } from './types.js';

const sha256url = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');

/** the three spellings of an ed25519 public key that name it */
const ed25519Forms = (key: Buffer): string[] => [bs58.encode(key), sha256url(key), key.toString('base64url')];

const ED25519_TYPES: ReadonlySet<number> = new Set([SignatureConfig.ED25519, SignatureConfig.SOLANA, SignatureConfig.INJECTEDAPTOS]);

/**
 * Every address that names the key that signed an item, for the block list: whichever of them the
 * operator blocks, the key is refused under every signature type that uses it.
 * - Always the native address (CONTRACT.md section 5) and base64url(sha256(owner)), the receipt's `owner`.
 * - Types 2, 4 and 5 share the 32-byte ed25519 key, under two native addresses: base58 (2 and 4) and
 *   base64url(sha256) (5). Each names the key, so both are listed for all three, and the key's own
 *   base64url (what `GET /tx/:id` answers as `owner`). A sha256 cannot be reversed, but it need not be:
 *   an item of any of the three types lists the sha256 of its key, so a blocked type-5 address
 *   refuses the key under types 2 and 4 too.
 * - Type 6 (multi-ed25519) also lists those of every key that signed the item (the slots its bitmap
 *   marks): a blocked key cannot sign through a multisig of its own, 1 of 1.
 * - Types 3 and 7 need nothing more: both name the secp256k1 key by the same ethereum address.
 * Throws for an unsupported type (the verifier refused those before).
 */
export function ownerAddresses(signatureType: number, owner: Buffer, signature: Buffer): string[] {
  const scheme = schemeFor(signatureType);
  if (!scheme) throw new Error(`unsupported signature type ${signatureType}`);
  const addresses = new Set([scheme.nativeAddress(owner), sha256url(owner)]);
  const keys = ED25519_TYPES.has(signatureType) ? [owner] : signatureType === SignatureConfig.MULTIAPTOS ? signingKeys(signature, owner) : [];
  for (const key of keys) for (const form of ed25519Forms(key)) addresses.add(form);
  return [...addresses];
}

/**
 * The addresses of the ed25519 key that `address` spells, when it spells one (base58 or base64url of
 * 32 bytes), else none: a blocked key's accounts under every type are refused as payers too. A string
 * that is an arweave address and happens to decode as well yields addresses of a "key" that is a hash
 * output, whose private key nobody has: blocking them refuses nobody else.
 */
export function ed25519KeyAddresses(address: string): string[] {
  const forms = new Set<string>();
  for (const key of [decodeBase58(address), Buffer.from(address, 'base64url')]) {
    if (key?.length === 32 && (bs58.encode(key) === address || key.toString('base64url') === address)) for (const form of ed25519Forms(key)) forms.add(form);
  }
  return [...forms];
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const decodeBase58 = (text: string): Buffer | undefined => (BASE58.test(text) ? Buffer.from(bs58.decode(text)) : undefined);

/** ownerAddresses of a parsed header */
export const ownerAddressesOf = (header: Pick<VerifiedHeader, 'signatureType' | 'ownerPublicKey' | 'signature'>): string[] =>
  ownerAddresses(header.signatureType, Buffer.from(header.ownerPublicKey, 'base64url'), Buffer.from(header.signature, 'base64url'));
