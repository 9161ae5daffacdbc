import { createPublicKey, verify } from 'node:crypto';
import type { Receipt } from '../domain/receipt.js';
import { RECEIPT_PSS, receiptMessage } from './receiptMessage.js';

export type SignedReceiptFields = Pick<Receipt, 'id' | 'deadlineHeight' | 'timestamp' | 'public' | 'signature'> & {
  version: string;
};

/**
 * Checks a receipt's signature as Irys clients do (the message is rebuilt from the receipt's own
 * fields, its `version` included), but with the salt length we sign with. For audits and tests;
 * cheap enough (RSA verify) to run on the event loop. Malformed fields give false, never a throw.
 */
export async function verifyReceipt(receipt: SignedReceiptFields): Promise<boolean> {
  try {
    // Receipts carry only the modulus: Arweave keys always use the exponent 65537 ("AQAB").
    const key = createPublicKey({ key: { kty: 'RSA', n: receipt.public, e: 'AQAB' }, format: 'jwk' });
    const message = receiptMessage(receipt, receipt.version);
    return verify('sha256', message, { key, ...RECEIPT_PSS }, Buffer.from(receipt.signature, 'base64url'));
  } catch {
    return false;
  }
}
