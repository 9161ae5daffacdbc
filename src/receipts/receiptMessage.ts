import { constants } from 'node:crypto';
import { deepHash, DeepHashList } from '../crypto/deepHash.js';

/** The receipt fields the service wallet signs. */
export interface UnsignedReceipt {
  id: string;
  deadlineHeight: number;
  timestamp: number;
}

/**
 * The bytes a receipt signature covers, as Irys and Bundlr clients rebuild them:
 * deepHash(["Bundlr", version, id, String(deadlineHeight), String(timestamp)]), each as UTF-8.
 */
export function receiptMessage({ id, deadlineHeight, timestamp }: UnsignedReceipt, version: string): Buffer {
  const list = prefixOf(version).clone();
  for (const field of [id, String(deadlineHeight), String(timestamp)]) list.add(deepHash(Buffer.from(field, 'utf8')));
  return list.digest();
}

/**
 * The list with "Bundlr" and `version` added, the same for every receipt of that version: 7 of the
 * 16 SHA-384s a receipt's message takes, done once (every small upload signs one receipt).
 */
function prefixOf(version: string): DeepHashList {
  let prefix = prefixes.get(version);
  if (prefix === undefined) {
    prefix = new DeepHashList(5).add(deepHash(Buffer.from('Bundlr', 'utf8'))).add(deepHash(Buffer.from(version, 'utf8')));
    // versions come from the service's constant or from a receipt being checked: a few at most,
    // but a checked receipt's version is the client's, so the cache stays bounded
    if (prefixes.size < MAX_VERSIONS) prefixes.set(version, prefix);
  }
  return prefix;
}
const prefixes = new Map<string, DeepHashList>();
const MAX_VERSIONS = 16;

/**
 * RSA-PSS with SHA-256 (the hash given to sign/verify) and an empty salt, as Arweave signs:
 * a zero salt makes the signature deterministic, and clients verify with "any salt length".
 */
export const RECEIPT_PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 0 } as const;
