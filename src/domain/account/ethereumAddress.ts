import { keccak256 } from 'arbundles';

/**
 * Ethereum addresses as the payment accounts know them (CONTRACT.md section 5): 0x-prefixed
 * EIP-55 mixed-case checksum of the last 20 bytes of keccak-256 over the 64-byte public key.
 */

const keccak = (bytes: Uint8Array): Buffer => keccak256(Buffer.from(bytes)) as Buffer;

/** EIP-55 form of a 40-digit hex address, given with or without 0x, in any case */
export function toChecksumAddress(address: string): string {
  const digits = address.replace(/^0x/, '').toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(digits)) throw new Error(`not an ethereum address: ${address}`);
  const hash = keccak(Buffer.from(digits, 'ascii')).toString('hex');
  let out = '0x';
  for (let i = 0; i < digits.length; i++) {
    const digit = digits[i] as string;
    // a letter is upper case where the matching nibble of the hash of the lower-case address is >= 8
    out += parseInt(hash[i] as string, 16) >= 8 ? digit.toUpperCase() : digit;
  }
  return out;
}

/** address of a 65-byte uncompressed secp256k1 public key (0x04 ‖ X ‖ Y) */
export function addressOfPublicKey(uncompressed: Uint8Array): string {
  if (uncompressed.length !== 65 || uncompressed[0] !== 0x04) throw new Error('expected a 65-byte uncompressed public key');
  return toChecksumAddress(keccak(uncompressed.subarray(1)).subarray(12).toString('hex'));
}

/**
 * Whether a 0x address string is one ethers accepts: 40 hex digits, and when it mixes cases the
 * case must be the EIP-55 checksum (all lower or all upper case carry no checksum).
 */
export function isAcceptedAddress(text: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(text)) return false;
  const digits = text.slice(2);
  const mixed = /[a-f]/.test(digits) && /[A-F]/.test(digits);
  return !mixed || toChecksumAddress(text) === text;
}
