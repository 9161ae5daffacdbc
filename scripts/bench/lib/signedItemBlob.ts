import { createHash, randomBytes } from 'node:crypto';
import { EthereumSigner } from 'arbundles';
import { blobHash, DeepHashList, StreamingBlobHash } from '../../../src/crypto/deepHash.js';
import type { BlobStore } from '../../../src/ports/blobStore.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const PIECE = 4 << 20;
/** Ethereum-signed (type 3), no target, anchor or tags: 2 + 65 + 65 + 1 + 1 + 16 */
const HEADER_BYTES = 150;

/**
 * The payload, piece by piece, the same on every call: random bytes made once, each piece stamped
 * with its index so no two are equal. Generated twice (hashed, then written) rather than kept.
 */
function* payload(seed: Buffer, bytes: number): Generator<Buffer> {
  const piece = Buffer.from(seed);
  for (let at = 0, index = 0; at < bytes; at += PIECE, index++) {
    piece.writeUInt32LE(index, 0);
    yield piece.subarray(0, Math.min(PIECE, bytes - at));
  }
}

/**
 * Writes a signed ANS-104 item of exactly `size` bytes to `items/<id>` of the blob store, with
 * memory for one 4 MiB piece whatever the size: the signature covers the payload's deep hash and
 * precedes it, so the payload is generated once to hash it, then again to write it after the header.
 */
export async function putSignedItem(store: BlobStore, size: number): Promise<{ id: string; size: number }> {
  if (size <= HEADER_BYTES) throw new RangeError(`an item needs more than ${HEADER_BYTES} bytes`);
  const signer = new EthereumSigner(randomBytes(32).toString('hex'));
  const seed = randomBytes(PIECE);
  const payloadBytes = size - HEADER_BYTES;
  const payloadHash = new StreamingBlobHash();
  for (const piece of payload(seed, payloadBytes)) payloadHash.update(piece);
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
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt16LE(3, 0);
  signature.copy(header, 2);
  signer.publicKey.copy(header, 67);
  // presence bytes (target, anchor), tag count and tag bytes: zero already

  const id = createHash('sha256').update(signature).digest('base64url');
  const writer = await store.createWriter();
  try {
    await writer.write(header);
    for (const piece of payload(seed, payloadBytes)) await writer.write(piece);
    await writer.commit(`items/${id}`);
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return { id, size };
}
