import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { SignatureConfig } from 'arbundles';
import { schemeFor } from './schemes/index.js';
import { signingKeys } from './schemes/multiAptos.js';
import type { VerifiedHeader } from './types.js';

const sha256url = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');

/** the spellings of an ed25519 public key that name it: base58 (types 2, 4), base64url(sha256) (type 5), base64url */
const ed25519Forms = (key: Buffer): string[] => [bs58.encode(key), sha256url(key), key.toString('base64url')];

/**
 * The addresses that name the signer of an item, for the block list (which is checked by any of them).
 * An item of any type lists its native address (CONTRACT.md section 5) and base64url(sha256(owner)),
 * the receipt's `owner`. That sha256 is what ties an ed25519 key together: types 2, 4 and 5 share the
 * 32-byte key, under the native addresses base58 (2, 4) and base64url(sha256) (5). A sha256 cannot be
 * reversed, but it need not be: every item of the three types lists the sha256 of its key, so a
 * blocked type-5 address refuses the key as type 2 and 4 too; and the block list reads each listed
 * spelling of a key (base58, base64url) as its sha256 as well (ed25519KeyAddresses), so a key blocked
 * by its base58 is refused as type 5 too. Type 6 (multi-ed25519) also lists the sha256 of each key that
 * signed the item (the slots its bitmap marks): a blocked key cannot sign through a multisig of its own,
 * 1 of 1. Types 3 and 7 need nothing more: both name the secp256k1 key by the same ethereum address.
 * Throws for an unsupported type (the verifier refused those before).
 */
export function ownerAddresses(signatureType: number, owner: Buffer, signature: Buffer): string[] {
  const scheme = schemeFor(signatureType);
  if (!scheme) throw new Error(`unsupported signature type ${signatureType}`);
  const addresses = new Set([scheme.nativeAddress(owner), sha256url(owner)]);
  if (signatureType === SignatureConfig.MULTIAPTOS) for (const key of signingKeys(signature, owner)) addresses.add(sha256url(key));
  return [...addresses];
}

/**
 * The addresses of the ed25519 key that `address` spells, when it spells one (base58 or base64url of
 * 32 bytes), else none: its sha256, which items of every type that use the key list (ownerAddresses),
 * and its accounts under every type, refused as payers too. A string
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
