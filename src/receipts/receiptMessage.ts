import { constants } from 'node:crypto';
import { deepHash } from '../crypto/deepHash.js';

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
export const receiptMessage = ({ id, deadlineHeight, timestamp }: UnsignedReceipt, version: string): Buffer =>
  deepHash(['Bundlr', version, id, String(deadlineHeight), String(timestamp)].map((s) => Buffer.from(s, 'utf8')));

/**
 * RSA-PSS with SHA-256 (the hash given to sign/verify) and an empty salt, as Arweave signs:
 * a zero salt makes the signature deterministic, and clients verify with "any salt length".
 */
export const RECEIPT_PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 0 } as const;
