import { createHash } from 'node:crypto';
import { parseAccountAddress } from '../account/ids.js';
import { addressOfPublicKey } from '../account/ethereumAddress.js';

/** an owner's public key as an item carries it: base64url of the owner bytes, in its one canonical spelling */
const OWNER_KEY = /^[A-Za-z0-9_-]{44,1400}$/;

const sha256url = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');

/**
 * The address to put on the block list for what the operator names: an address as accounts are keyed
 * (parseAccountAddress), or an owner's public key as `GET /tx/:id` answers it (`owner`, base64url of
 * the owner bytes), brought to the address that names that key under every signature type of its kind:
 * an RSA modulus (512 bytes) and a multi-aptos owner (1025) their sha256; a secp256k1 key (65 bytes)
 * or a typed-ethereum owner (the ASCII 0x address) the ethereum address, which types 3 and 7 share. An
 * ed25519 key (32 bytes) needs nothing: its base58 (as wallets show it) and its base64url are both
 * addresses, and an item of types 2, 4, 5 or 6 is checked by every spelling of its key (ownerAddresses).
 * Undefined for anything else.
 */
export function parseBlockTarget(input: string): string | undefined {
  const address = parseAccountAddress(input);
  if (address !== undefined) return address;
  const s = input.trim();
  if (!OWNER_KEY.test(s)) return undefined;
  const owner = Buffer.from(s, 'base64url');
  if (owner.toString('base64url') !== s) return undefined;
  if (owner.length === 512 || owner.length === 1025) return sha256url(owner);
  if (owner.length === 65 && owner[0] === 0x04) return addressOfPublicKey(owner);
  const typedEthereumOwner = owner.toString('latin1');
  return /^0x[0-9a-fA-F]{40}$/.test(typedEthereumOwner) ? parseAccountAddress(typedEthereumOwner) : undefined;
}
