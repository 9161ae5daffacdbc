import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { serializeTags } from 'arbundles';
import { deepHash } from '../../../src/verify/index.js';

/**
 * Bundle entries an attacker can make by the thousand: an ANS-104 header of signature type 2
 * (ed25519) whose id is right (sha256 of its signature bytes) but whose signature is random bytes,
 * so only a signature check tells it from a real item. With `signature`, a copy of another item's
 * signature claims that item's id (or, with the right owner, it is the genuine item: genuineEntry).
 */
export function fakeEntry(
  payload: Uint8Array = Buffer.from('no'),
  signature: Uint8Array = randomBytes(64),
  owner: Uint8Array = randomBytes(32),
  tagBytes: { count: number; bytes: Uint8Array } = { count: 0, bytes: Buffer.alloc(0) },
): { id: string; raw: Buffer } {
  const header = Buffer.alloc(2 + 64 + 32 + 1 + 1 + 16);
  header.writeUInt16LE(2, 0);
  Buffer.from(signature).copy(header, 2);
  Buffer.from(owner).copy(header, 66);
  // no target, no anchor: their flags are already zero
  header.writeUInt32LE(tagBytes.count, 2 + 64 + 32 + 2);
  header.writeUInt32LE(tagBytes.bytes.length, 2 + 64 + 32 + 2 + 8);
  return { id: createHash('sha256').update(signature).digest('base64url'), raw: Buffer.concat([header, tagBytes.bytes, payload]) };
}

/**
 * A genuine item of signature type 2 (ed25519) made without arbundles, fast enough for bundles of
 * 100,000 (node:crypto signs; the message is the ANS-104 deep hash, as arbundles signs it); its tags
 * encoded by arbundles.
 */
export function genuineEntry(
  key: { privateKey: KeyObject; owner: Buffer },
  payload: Uint8Array = randomBytes(16),
  tags: { name: string; value: string }[] = [],
): { id: string; raw: Buffer } {
  const empty = Buffer.alloc(0);
  const tagBytes = tags.length > 0 ? serializeTags(tags) : empty;
  const message = deepHash([Buffer.from('dataitem'), Buffer.from('1'), Buffer.from('2'), key.owner, empty, empty, tagBytes, payload]);
  const signature = sign(null, message, key.privateKey);
  return fakeEntry(payload, signature, key.owner, { count: tags.length, bytes: tagBytes });
}

/** an ed25519 key as genuineEntry needs it */
export function ed25519Key(): { privateKey: KeyObject; owner: Buffer } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, owner: Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url') };
}

/** An ANS-104 bundle of raw items listed under the given ids (a real item's own id, or a claim). */
export function rawBundle(entries: readonly { id: string; raw: Uint8Array }[]): Buffer {
  const head = Buffer.alloc(32 + 64 * entries.length);
  head.writeUIntLE(entries.length, 0, 6);
  entries.forEach((entry, i) => {
    head.writeUIntLE(entry.raw.length, 32 + 64 * i, 6);
    Buffer.from(entry.id, 'base64url').copy(head, 32 + 64 * i + 32);
  });
  return Buffer.concat([head, ...entries.map((entry) => entry.raw)]);
}

/** A bundle of `count` fake entries (see fakeEntry). */
export const fakeBundle = (count: number): Buffer => rawBundle(Array.from({ length: count }, () => fakeEntry()));
