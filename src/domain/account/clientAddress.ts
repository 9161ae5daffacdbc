import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { parseAccountAddress } from './ids.js';

/**
 * The token names and address forms the clients send to `GET /account/balance/:token?address=`, brought
 * to the account key of CONTRACT.md section 5 (the native address of the signature type).
 *
 * Token names: turbo-sdk's `tokenTypes` (ardriveapp/turbo-sdk packages/turbo-sdk/src/types.ts at 1be4559)
 * and the names of Irys's token configs (Irys-xyz/arweave-js-sdk src/node/tokens/index.ts at 985ba09).
 */
export const CLIENT_TOKENS: ReadonlySet<string> = new Set([
  // turbo-sdk
  'arweave',
  'ario',
  'base-ario',
  'solana',
  'ethereum',
  'kyve',
  'matic',
  'pol',
  'base-eth',
  'usdc',
  'base-usdc',
  'polygon-usdc',
  // Irys
  'bnb',
  'fantom',
  'avalanche',
  'boba-eth',
  'boba',
  'usdc-eth',
  'usdc-polygon',
  'arbitrum',
  'chainlink',
  'near',
  'algorand',
  'aptos',
  'bera',
  'scroll-eth',
  'linea-eth',
  'iotex',
]);

/** Algorand: base32 (RFC 4648, no padding) of the 32-byte ed25519 key and the last 4 bytes of its SHA-512/256 */
const ALGORAND = /^[A-Z2-7]{58}$/;
/** NEAR implicit account: the hex of the 32-byte ed25519 key (Irys near.ts `ownerToAddress`) */
const NEAR_IMPLICIT = /^[0-9a-f]{64}$/;
/** kyve: bech32 of ripemd160(sha256(the compressed secp256k1 key)); 43 characters, so also of an arweave address's shape */
const KYVE_BECH32 = /^kyve1[02-9ac-hj-np-z]{38}$/;

function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const c of text) {
    value = (value << 5) | alphabet.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** the ed25519 key of an Algorand address whose checksum holds */
function algorandKey(text: string): Uint8Array | undefined {
  const bytes = base32Decode(text);
  if (bytes.length !== 36) return undefined;
  const key = bytes.subarray(0, 32);
  const checksum = createHash('sha512-256').update(key).digest().subarray(28);
  return checksum.equals(bytes.subarray(32)) ? key : undefined;
}

/**
 * The account key of an address as a client names it, or undefined when it names none: the forms of
 * `parseAccountAddress` (arweave, 0x, base58), an Algorand address or a NEAR implicit account (both are
 * the ed25519 key, keyed by its base58). For `token` kyve, a bech32 address is one of the forms that name none. Forms that are a hash of the key (a kyve bech32 address, an
 * Aptos `0x` + 64 hex digits, a named NEAR account) cannot be brought to the key the service knows
 * accounts by, so they name no account here.
 */
export function accountKeyOfClientAddress(input: string, token?: string): string | undefined {
  const text = input.trim();
  if (token === 'kyve' && KYVE_BECH32.test(text)) return undefined;
  if (ALGORAND.test(text)) {
    const key = algorandKey(text);
    return key ? bs58.encode(key) : undefined;
  }
  if (NEAR_IMPLICIT.test(text)) return bs58.encode(Buffer.from(text, 'hex'));
  return parseAccountAddress(text);
}
