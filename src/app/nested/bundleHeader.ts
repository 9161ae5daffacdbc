/**
 * The ANS-104 bundle header: a 32-byte little-endian item count, then per item a 32-byte
 * little-endian size and the 32-byte raw id (sha256 of the item's signature), then the items back
 * to back in header order. Pure functions over bytes already read.
 */

export const COUNT_BYTES = 32;
export const ENTRY_BYTES = 64;

/** One item as the bundle header places it. */
export interface BundleEntry {
  /** base64url of the raw id in the header */
  id: string;
  size: number;
  /** from the first byte of the bundle (its count field) to the item's raw start */
  offset: number;
}

/** Why a bundle's items cannot be indexed; the item carrying the bundle stays accepted. */
export class UnindexableBundle extends Error {
  override readonly name = 'UnindexableBundle';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * A 256-bit little-endian number, or undefined when it is larger than a safe integer. Without
 * BigInt: a header of 100,000 entries is read in a few milliseconds rather than a few hundred.
 */
export function readLength(bytes: Uint8Array): number | undefined {
  for (let i = bytes.length - 1; i > 6; i--) if (bytes[i] !== 0) return undefined;
  // 2^53 - 1 has 0x1f in its seventh byte: anything above is not safe
  if (bytes[6]! > 0x1f) return undefined;
  let value = 0;
  for (let i = 6; i >= 0; i--) value = value * 256 + bytes[i]!;
  return value;
}

/** The item count, checked against what the bundle's bytes can hold. */
export function itemCount(countBytes: Uint8Array, bundleLength: number): number {
  const count = readLength(countBytes);
  if (count === undefined || COUNT_BYTES + ENTRY_BYTES * count > bundleLength) {
    throw new UnindexableBundle(`a header of ${count ?? 'more than 2^53'} items does not fit in ${bundleLength} bytes`);
  }
  return count;
}

/**
 * The first `taken` entries of a header of `count` items (`entryBytes` holds theirs), one at a time
 * (a caller may give the event loop back between them). Items start after the whole header,
 * 32 + 64·count. With every entry read, their sizes must tile the rest of the bundle exactly:
 * 32 + 64·count + Σ sizes = bundle length, else the last step throws; anything else leaves the
 * items' places unknown. With fewer (a limit), each must still end inside the bundle; the rest of
 * the tiling is not read (that could be a gigabyte of header), and the signature check of each item
 * taken is what shows its bytes are where its entry says.
 */
export function* bundleEntries(entryBytes: Buffer, taken: number, count: number, bundleLength: number): Generator<BundleEntry> {
  let offset = COUNT_BYTES + ENTRY_BYTES * count;
  for (let i = 0; i < taken; i++) {
    const at = i * ENTRY_BYTES;
    const size = readLength(entryBytes.subarray(at, at + 32));
    if (size === undefined || offset + size > bundleLength) {
      throw new UnindexableBundle(`item ${i} of ${size ?? 'more than 2^53'} bytes ends past the bundle's ${bundleLength} bytes`);
    }
    yield { id: entryBytes.toString('base64url', at + 32, at + 64), size, offset };
    offset += size;
  }
  if (taken === count && offset !== bundleLength) throw new UnindexableBundle(`items end at byte ${offset} of a bundle of ${bundleLength} bytes`);
}
