import type { VerifiedHeader } from './types.js';
import { createDataItemVerifier } from './verifier.js';

/** the largest ANS-104 header (multi-aptos signature and owner, target, anchor, 4 KiB of tags) fits in this */
export const MAX_HEADER_BYTES = 8192;

/**
 * The header of an item from its first bytes, or undefined when they are too few or not a valid
 * header (the finalize step gives the authoritative verdict).
 */
export function headerOf(firstBytes: Uint8Array): VerifiedHeader | undefined {
  const verifier = createDataItemVerifier({ maxSize: Number.MAX_SAFE_INTEGER });
  try {
    verifier.write(firstBytes.subarray(0, MAX_HEADER_BYTES));
    return verifier.header;
  } catch {
    return undefined;
  }
}
