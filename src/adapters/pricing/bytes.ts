/**
 * Arweave prices data by the 256 KiB chunk: a started chunk is paid in full, so sizes within one chunk
 * cost the same and can share a price.
 */
export const CHUNK_SIZE = 262_144;

/** A price is asked for a real size; anything else is a bug in the caller, not a free upload. */
export function assertByteCount(bytes: number): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`not a byte count: ${bytes}`);
}

/** 0 for an empty item. Exact for every safe integer: dividing by a power of two loses nothing. */
export const chunksOf = (bytes: number): number => Math.ceil(bytes / CHUNK_SIZE);

/** ⌈a / b⌉ for a ≥ 0, b > 0 */
export const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
