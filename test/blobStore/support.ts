import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

export const MiB = 1024 * 1024;

/** Collects a (small) stream; large blobs go through `sha256Of` instead. */
export async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function sha256Of(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest('hex');
}

/** Yields `bytes` in pieces of uneven sizes, so adapters see more than one write per blob. */
export async function* piecesOf(bytes: Uint8Array, pieceSize = 64 * 1024 + 3): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += pieceSize) yield bytes.subarray(at, at + pieceSize);
}

/** Random chunks made as they are consumed, hashed on the way: memory stays at one chunk. */
export function randomChunks(count: number, size: number): { chunks: AsyncGenerator<Uint8Array>; sha256: () => string } {
  const hash = createHash('sha256');
  let digest: string | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < count; i++) {
      const chunk = randomBytes(size);
      hash.update(chunk);
      yield chunk;
    }
    digest = hash.digest('hex');
  }
  return {
    chunks: chunks(),
    sha256: () => {
      if (digest === undefined) throw new Error('the chunks were not all consumed');
      return digest;
    },
  };
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`rejected with a non-Error: ${String(error)}`);
  }
  throw new Error('expected a rejection, but the promise resolved');
}
