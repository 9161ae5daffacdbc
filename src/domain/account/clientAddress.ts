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

/** the tokens whose wallets are secp256k1 keys with 0x addresses (Irys's kyve is an ERC-20: its config in tokens/index.ts) */
const EVM = new Set([
  'ethereum',
  'matic',
  'pol',
  'base-eth',
  'usdc',
  'base-usdc',
  'polygon-usdc',
  'base-ario',
  'kyve',
  'bnb',
  'fantom',
  'avalanche',
  'boba-eth',
  'boba',
  'usdc-eth',
  'usdc-polygon',
  'arbitrum',
  'chainlink',
  'bera',
  'scroll-eth',
  'linea-eth',
  'iotex',
]);
const ARWEAVE = new Set(['arweave', 'ario']);
/**
 * As every other way in keys it (parseAccountAddress): not brought to the canonical spelling of its 32
 * bytes here alone, or an account credited under another spelling (an operator's, a top-up's
 * destination tag) would read as empty by this route only.
 */
const ARWEAVE_ADDRESS = /^[A-Za-z0-9_-]{43}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** a base58 ed25519 key: 32 bytes */
const base58Key = (text: string) => (BASE58.test(text) && bs58.decode(text).length === 32 ? text : undefined);

/** 0x and 40 hex digits, in any case: keyed by the checksum form */
const evmAddress = (text: string) => (/^0x[0-9a-fA-F]{40}$/.test(text) ? parseAccountAddress(text) : undefined);

/**
 * The account key of an address as a client names it for `token`, or undefined when it names none.
 * Each token's wallets have one form: 0x addresses for the EVM tokens, arweave addresses for arweave
 * and ario, base58 keys for solana, an
 * Algorand address or a NEAR implicit account (both the ed25519 key itself) for those. Forms that are
 * a hash of the key cannot be brought to the key accounts are known by: a kyve bech32 address
 * (turbo-sdk's kyve signer), an Aptos address (`0x` + 64 hex digits, sha3-256 of the key), a named NEAR
 * account. Without a token (a route naming no token), any form `parseAccountAddress` takes.
 */
export function accountKeyOfClientAddress(input: string, token?: string): string | undefined {
  const text = input.trim();
  if (token === undefined) return parseAccountAddress(text);
  if (token === 'kyve' && KYVE_BECH32.test(text)) return undefined;
  if (EVM.has(token)) return evmAddress(text);
  if (ARWEAVE.has(token)) return ARWEAVE_ADDRESS.test(text) ? text : undefined;
  if (token === 'solana') return base58Key(text);
  if (token === 'algorand') {
    const key = ALGORAND.test(text) ? algorandKey(text) : undefined;
    return key ? bs58.encode(key) : undefined;
  }
  if (token === 'near') return NEAR_IMPLICIT.test(text) ? bs58.encode(Buffer.from(text, 'hex')) : undefined;
  if (token === 'aptos') return undefined;
  // a token of /info that no client list names: any form
  return parseAccountAddress(text);
}
