import { createHash, randomBytes } from 'node:crypto';
import { EthereumSigner } from 'arbundles';
import { blobHash, DeepHashList, StreamingBlobHash } from '../../../src/crypto/deepHash.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const PIECE = 4 << 20;
/** Ethereum-signed (type 3), no target, anchor or tags: 2 + 65 + 65 + 1 + 1 + 16 */
export const SYNTHETIC_HEADER_BYTES = 150;

export interface SyntheticItem {
  id: string;
  /** the signed header: its bytes come first */
  header: Buffer;
  /** the payload, piece by piece (one reused 4 MiB buffer), the same bytes on every call */
  payload(): Generator<Buffer>;
}

/**
 * A signed ANS-104 item of exactly `size` bytes that never exists whole in memory: the payload is
 * random bytes made once and stamped per piece with its index (so no two pieces are equal),
 * generated once to hash it for the signature and again wherever it is written.
 */
export async function syntheticItem(size: number): Promise<SyntheticItem> {
  if (size <= SYNTHETIC_HEADER_BYTES) throw new RangeError(`an item needs more than ${SYNTHETIC_HEADER_BYTES} bytes`);
  const signer = new EthereumSigner(randomBytes(32).toString('hex'));
  const seed = randomBytes(PIECE);
  const payloadBytes = size - SYNTHETIC_HEADER_BYTES;
  function* payload(): Generator<Buffer> {
    const piece = Buffer.from(seed);
    for (let at = 0, index = 0; at < payloadBytes; at += PIECE, index++) {
      piece.writeUInt32LE(index, 0);
      yield piece.subarray(0, Math.min(PIECE, payloadBytes - at));
    }
  }
  const payloadHash = new StreamingBlobHash();
  for (const piece of payload()) payloadHash.update(piece);
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
  const header = Buffer.alloc(SYNTHETIC_HEADER_BYTES);
  header.writeUInt16LE(3, 0);
  signature.copy(header, 2);
  signer.publicKey.copy(header, 67);
  // presence bytes (target, anchor), tag count and tag bytes: zero already
  return { id: createHash('sha256').update(signature).digest('base64url'), header, payload };
}
