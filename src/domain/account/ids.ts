import { streamName, type StreamName } from '../../ports/eventStore.js';
import { toChecksumAddress } from './ethereumAddress.js';

/**
 * Account keys are native addresses (CONTRACT.md section 5): base64url (43 chars) for arweave and
 * other types, 0x EIP-55 for ethereum, base58 for solana and ed25519.
 */
export const ADDRESS = /^(?:[A-Za-z0-9_-]{43}|0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/;

/** The canonical account key of an address given by a person or a header, or undefined if it is not one. */
export function parseAccountAddress(input: string): string | undefined {
  const s = input.trim();
  if (!ADDRESS.test(s)) return undefined;
  return /^0x[0-9a-fA-F]{40}$/.test(s) ? toChecksumAddress(s) : s;
}

export const accountStream = (address: string): StreamName => streamName(`account-${address}`);
