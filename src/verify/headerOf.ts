import { HeaderParser } from './headerParser.js';
import type { VerifiedHeader } from './types.js';
import { headerFields } from './verifier.js';

/** the largest ANS-104 header (multi-aptos signature and owner, target, anchor, 4 KiB of tags) fits in this */
export const MAX_HEADER_BYTES = 8192;

/**
 * The header of an item from its first bytes, or undefined when they are too few or not a valid
 * header (the finalize step gives the authoritative verdict). Parsed only, as the verifier parses
 * it (its tag rules too): nothing of the signed message is hashed and no payload byte is read, which
 * the verifier does for the signature's sake and a reader of headers (the optical bridge, a
 * multi-part upload's owner, a read's headers) does not need.
 */
export function headerOf(firstBytes: Uint8Array): VerifiedHeader | undefined {
  const parser = new HeaderParser();
  try {
    parser.push(firstBytes.subarray(0, MAX_HEADER_BYTES));
    return parser.header && headerFields(parser.header);
  } catch {
    return undefined;
  }
}
