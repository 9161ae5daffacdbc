import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { EthereumSigner } from 'arbundles';
import { blobHash, DeepHashList, StreamingBlobHash } from '../../../src/crypto/deepHash.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const PIECE = 16 << 20;

/**
 * Writes a signed ANS-104 item of exactly `size` bytes to `file` without holding it in memory: the
 * payload is hashed as it is written, the signature made from the deep hash, then the header is put
 * in front. Ethereum-signed (type 3), no tags, no target, no anchor: header 2 + 65 + 65 + 1 + 1 + 16.
 */
export async function writeLargeItem(file: string, size: number): Promise<{ id: string; headerBytes: number }> {
  const signer = new EthereumSigner(randomBytes(32).toString('hex'));
  const headerBytes = 2 + 65 + 65 + 1 + 1 + 16;
  const payloadBytes = size - headerBytes;
  const payloadFile = `${file}.payload`;
  const payloadHash = new StreamingBlobHash();
  const out = createWriteStream(payloadFile);
  const piece = randomBytes(PIECE);
  for (let written = 0; written < payloadBytes; written += PIECE) {
    // vary each piece cheaply so no two pieces are equal
    piece.writeUInt32LE(written / PIECE, 0);
    const part = piece.subarray(0, Math.min(PIECE, payloadBytes - written));
    payloadHash.update(part);
    if (!out.write(part)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');

  const message = new DeepHashList(8)
    .add(blobHash(utf8('dataitem')))
    .add(blobHash(utf8('1')))
    .add(blobHash(utf8('3')))
    .add(blobHash(signer.publicKey))
    .add(blobHash(new Uint8Array(0)))
    .add(blobHash(new Uint8Array(0)))
    .add(blobHash(new Uint8Array(0)))
    .add(payloadHash.digest())
    .digest();
  const signature = Buffer.from(await signer.sign(message));
  const header = Buffer.alloc(headerBytes);
  header.writeUInt16LE(3, 0);
  signature.copy(header, 2);
  signer.publicKey.copy(header, 67);
  // presence bytes (target, anchor) 0, tag count 0, tag bytes 0: already zero

  const item = createWriteStream(file);
  item.write(header);
  for await (const part of createReadStream(payloadFile, { highWaterMark: PIECE })) {
    if (!item.write(part)) await once(item, 'drain');
  }
  item.end();
  await once(item, 'finish');
  await rm(payloadFile);
  const { createHash } = await import('node:crypto');
  return { id: createHash('sha256').update(signature).digest('base64url'), headerBytes };
}

/** bytes `start`..`end` (exclusive) of a file, as a stream */
export const fileRange = (file: string, start: number, end: number) =>
  createReadStream(file, { start, end: end - 1, highWaterMark: 1 << 20 });

export async function fileSize(file: string): Promise<number> {
  const handle = await open(file);
  try {
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}
