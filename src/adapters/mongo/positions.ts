import { Long } from 'mongodb';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Event positions are stored as BSON int64: exact beyond 2^53 (a double is not) and compared
 * numerically by the server, so the `$lt` guards of conditional writes order them correctly.
 * The BSON serializer wraps a bigint outside int64 silently (2^63 would be stored as -2^63, before
 * every other position), so such a position is refused here instead. SQLite's INTEGER has the same range.
 */
export function encodePosition(position: bigint): bigint {
  if (typeof position !== 'bigint' || position < INT64_MIN || position > INT64_MAX) {
    throw new RangeError(`position ${String(position)} does not fit a signed 64-bit integer`);
  }
  return position;
}

/**
 * Reads a stored position back. Collections are read with `useBigInt64`, so int64 arrives as a bigint;
 * an int32 or a double (written by hand, or by another tool) is accepted when it is an exact integer.
 */
export function decodePosition(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (value instanceof Long) return value.toBigInt();
  throw new TypeError(`stored position is not an integer: ${String(value)}`);
}
