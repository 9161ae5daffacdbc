import { createHash } from 'node:crypto';
import { createData, type DataItem, type Signer } from 'arbundles';
import type { Tag, VerifiedDataItem } from '../../../src/verify/index.js';

export const randomInt = (random: () => number, min: number, max: number): number => min + Math.floor(random() * (max - min + 1));

export function randomBytes(random: () => number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

const ALPHABET = ['a', 'Z', '0', '-', ' ', 'é', 'ß', '€', '日', '𝄞'];

function randomText(random: () => number, maxChars: number): string {
  let text = '';
  const length = randomInt(random, 1, maxChars);
  for (let i = 0; i < length; i++) text += ALPHABET[randomInt(random, 0, ALPHABET.length - 1)];
  return text;
}

export function randomTags(random: () => number): Tag[] {
  const count = random() < 0.25 ? 0 : randomInt(random, 1, 12);
  return Array.from({ length: count }, () => ({ name: randomText(random, 16), value: randomText(random, 40) }));
}

export interface ItemOptions {
  tags?: Tag[];
  target?: string;
  anchor?: string;
}

export function randomItemOptions(random: () => number): ItemOptions {
  return {
    tags: randomTags(random),
    ...(random() < 0.5 && { target: randomBytes(random, 32).toString('base64url') }),
    // arbundles takes the anchor as a string of exactly 32 bytes
    ...(random() < 0.5 && { anchor: randomBytes(random, 24).toString('base64') }),
  };
}

/** a signed item, as arbundles builds it */
export async function signedItem(signer: Signer, payload: Uint8Array | string, options: ItemOptions = {}) {
  const item = createData(typeof payload === 'string' ? payload : Buffer.from(payload), signer, options);
  await item.sign(signer);
  return item;
}

/** the bytes cut into random pieces, one byte pieces included */
export function randomChunks(random: () => number, bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = random() < 0.2 ? 1 : randomInt(random, 1, 700);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/** what arbundles' DataItem reads from the same bytes, in the verifier's vocabulary */
export function asArbundlesReadsIt(item: DataItem): Partial<VerifiedDataItem> {
  return {
    id: item.id,
    signatureType: item.signatureType,
    signature: item.signature,
    ownerPublicKey: item.owner,
    owner: createHash('sha256').update(item.rawOwner).digest('base64url'),
    ...(item.rawTarget.length > 0 && { target: item.target }),
    ...(item.rawAnchor.length > 0 && { anchor: item.anchor }),
    tags: item.tags,
    rawContentLength: item.getRaw().length,
    payloadDataStart: item.getStartOfData(),
    payloadContentLength: item.rawData.length,
  };
}
