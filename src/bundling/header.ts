import type { BundleEntry } from './layout.js';
import { bundleHeaderSize } from './layout.js';

/**
 * The ANS-104 bundle header: the item count as a 32-byte little-endian integer, then per item its
 * size (32-byte little-endian) and its raw 32-byte id. Entries are checked by `bundleLayout`.
 */
export function bundleHeader(entries: readonly BundleEntry[]): Buffer {
  return headerRange(entries, 0, bundleHeaderSize(entries.length));
}

/**
 * Bytes `[start, end)` of the header, building only the entries they touch: a 256 KiB chunk posted
 * on its own needs at most a few thousand of the header's (up to 10000) entries.
 */
export function headerRange(entries: readonly BundleEntry[], start: number, end: number): Buffer {
  const size = bundleHeaderSize(entries.length);
  if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && 0 <= start && start <= end && end <= size)) {
    throw new RangeError(`header range [${start}, ${end}) is outside [0, ${size})`);
  }
  const out = Buffer.alloc(end - start);
  // the 32-byte field at `at` of the header, copied where it overlaps [start, end)
  const put = (at: number, field: Uint8Array) => {
    const from = Math.max(at, start);
    const to = Math.min(at + 32, end);
    if (from < to) out.set(field.subarray(from - at, to - at), from - start);
  };
  if (start < 32) put(0, le256(entries.length));
  const first = Math.max(0, Math.floor((start - 32) / 64));
  const last = Math.min(entries.length, Math.ceil((end - 32) / 64));
  for (let i = first; i < last; i++) {
    const entry = entries[i] as BundleEntry;
    put(32 + 64 * i, le256(entry.size));
    put(64 + 64 * i, Buffer.from(entry.id, 'base64url'));
  }
  return out;
}

/** a non-negative safe integer as 32 bytes, least significant first (arbundles' longTo32ByteArray) */
export function le256(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${value} is not a size`);
  const bytes = Buffer.alloc(32);
  // 2^53 fits in 7 bytes; division, not shifts, because shifts truncate to 32 bits
  for (let i = 0, rest = value; rest > 0; i++, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
  return bytes;
}
