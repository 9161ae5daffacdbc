import { sign, type KeyObject } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { RECEIPT_PSS, receiptMessage, type UnsignedReceipt } from './receiptMessage.js';

/**
 * Entry point of a receipt signing worker thread (started by receiptSigner.ts, never imported
 * elsewhere): it signs with the private key it was given, so RSA-4096 work stays off the event loop.
 */

export interface SignWorkerData {
  privateKey: KeyObject;
  /** the receipt format version the signature covers */
  version: string;
}
export type SignRequest = UnsignedReceipt & { seq: number };
export type SignResponse =
  | { type: 'ready' }
  | { type: 'signed'; seq: number; signature: string }
  | { type: 'failed'; seq: number; message: string };

const port = parentPort;
if (!port) throw new Error('signWorker.ts runs only as a worker thread');
const { privateKey, version } = workerData as SignWorkerData;
const reply = (response: SignResponse) => port.postMessage(response);

port.on('message', (request: SignRequest) => {
  try {
    const signature = sign('sha256', receiptMessage(request, version), { key: privateKey, ...RECEIPT_PSS });
    reply({ type: 'signed', seq: request.seq, signature: signature.toString('base64url') });
  } catch (error) {
    reply({ type: 'failed', seq: request.seq, message: (error as Error).message });
  }
});
reply({ type: 'ready' });
