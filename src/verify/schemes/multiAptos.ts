import { createHash } from 'node:crypto';
import { indexToType, SIG_CONFIG, SignatureConfig } from 'arbundles';
import { settles, type SignatureScheme } from './scheme.js';
import { isSmallOrderEd25519Key } from './smallOrder.js';

/**
 * Type 6, Aptos multi-ed25519 as the Irys client lays it out. Owner (1025 bytes): up to 32
 * public keys in 32-byte slots, unused slots zero, then the threshold as an ASCII digit
 * (`Buffer.from(threshold.toString())`). Signature (2052 bytes): 32 slots of 64 bytes, then a
 * 4-byte bitmap, most significant bit first, marking the slots that hold a signature.
 *
 * arbundles checks only the slots the bitmap marks. An empty bitmap therefore "verifies" with no
 * signature at all, a zero key slot (or any small-order point) can be forged for, and the unmarked
 * slots are free bytes. Any of these would let anyone upload, and charge, as any type-6 owner, or mint
 * new ids for someone else's item. So: at least `threshold` marked slots, each over a real key,
 * and every unmarked slot all zero; the marked signatures are then checked by arbundles.
 */

const SLOTS = 32;
const KEY_BYTES = 32;
const SIG_BYTES = 64;
const BITMAP_AT = SLOTS * SIG_BYTES;
const THRESHOLD_AT = SLOTS * KEY_BYTES;

const isZero = (bytes: Buffer): boolean => bytes.every((byte) => byte === 0);
const marked = (bitmap: Buffer, slot: number): boolean => (((bitmap[slot >> 3] ?? 0) << (slot & 7)) & 0x80) !== 0;

function shapeProblem(signature: Buffer, owner: Buffer): string | undefined {
  const thresholdByte = owner[THRESHOLD_AT] ?? 0;
  if (thresholdByte < 0x31 || thresholdByte > 0x39) return `multi-aptos threshold byte ${thresholdByte} is not a digit 1..9`;
  const threshold = thresholdByte - 0x30;
  const bitmap = signature.subarray(BITMAP_AT, BITMAP_AT + 4);
  let signatures = 0;
  for (let slot = 0; slot < SLOTS; slot++) {
    const signatureSlot = signature.subarray(slot * SIG_BYTES, (slot + 1) * SIG_BYTES);
    if (!marked(bitmap, slot)) {
      if (!isZero(signatureSlot)) return `multi-aptos signature slot ${slot} is unmarked but not empty`;
      continue;
    }
    const key = owner.subarray(slot * KEY_BYTES, (slot + 1) * KEY_BYTES);
    if (isZero(key)) return `multi-aptos signature slot ${slot} is marked but has no key`;
    // the zero key is one of them: any small-order key is forged for just as easily (smallOrder.ts)
    if (isSmallOrderEd25519Key(key)) return `multi-aptos signature slot ${slot} is marked but its key is a small-order point`;
    signatures += 1;
  }
  return signatures < threshold ? `multi-aptos has ${signatures} signatures, threshold ${threshold}` : undefined;
}

/** the keys whose slots the signature marks: the ones that signed (the shape check holds each to a real key) */
export function signingKeys(signature: Buffer, owner: Buffer): Buffer[] {
  const bitmap = signature.subarray(BITMAP_AT, BITMAP_AT + 4);
  const keys: Buffer[] = [];
  for (let slot = 0; slot < SLOTS; slot++) if (marked(bitmap, slot)) keys.push(owner.subarray(slot * KEY_BYTES, (slot + 1) * KEY_BYTES));
  return keys;
}

const library = indexToType[SignatureConfig.MULTIAPTOS];

export const multiAptosScheme: SignatureScheme = {
  signatureType: SignatureConfig.MULTIAPTOS,
  signatureLength: SIG_CONFIG[SignatureConfig.MULTIAPTOS].sigLength,
  ownerLength: SIG_CONFIG[SignatureConfig.MULTIAPTOS].pubLength,
  checkHeader: (signature, owner) => shapeProblem(signature, owner),
  verify: (owner, message, signature) => settles(async () => library !== undefined && library.verify(owner, message, signature)),
  nativeAddress: (owner) => createHash('sha256').update(owner).digest('base64url'),
};
