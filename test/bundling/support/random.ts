import { createHash } from 'node:crypto';

/** Deterministic bytes (SHA-256 in counter mode): distinct content per seed, no randomness to log. */
export function bytesOf(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  for (let at = 0, counter = 0; at < size; at += 32, counter++) {
    createHash('sha256').update(`${seed}:${counter}`).digest().copy(out, at);
  }
  return out;
}

/** `data` cut into pieces of random sizes up to `maxPiece`, with an occasional empty piece. */
export function* piecesOf(data: Uint8Array, random: () => number, maxPiece = 300 * 1024): Generator<Uint8Array> {
  for (let at = 0; at < data.byteLength;) {
    if (random() < 0.05) yield data.subarray(at, at);
    const size = 1 + Math.floor(random() * maxPiece);
    yield data.subarray(at, at + size);
    at += size;
  }
}

export async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
