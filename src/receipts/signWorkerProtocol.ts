import type { KeyObject } from 'node:crypto';

/** Messages between receiptSigner.ts and its worker threads (signWorker.mjs). */
export interface SignWorkerData {
  privateKey: KeyObject;
}
/** `message`: the bytes to sign, RSA-PSS (SHA-256, salt length 0) as receiptMessage.ts describes */
export type SignRequest = { seq: number; message: Uint8Array };
export type SignResponse = { type: 'ready' } | { type: 'signed'; seq: number; signature: string } | { type: 'failed'; seq: number; message: string };
