import { RECEIPT_VERSION, type Receipt } from '../domain/receipt.js';
import type { ReceiptSigner } from './receiptSigner.js';

/** The receipt of CONTRACT.md section 3, its fields in wire order (clients and fixtures compare bodies). */
export const buildReceipt = (fields: Omit<Receipt, 'version'>): Receipt => ({
  id: fields.id,
  owner: fields.owner,
  dataCaches: [...fields.dataCaches],
  fastFinalityIndexes: [...fields.fastFinalityIndexes],
  deadlineHeight: fields.deadlineHeight,
  timestamp: fields.timestamp,
  version: RECEIPT_VERSION,
  winc: fields.winc,
  public: fields.public,
  signature: fields.signature,
});

/**
 * Signs and builds a receipt in one step, so the signature always covers the very id, deadline
 * height and timestamp the receipt carries.
 */
export async function issueReceipt(
  { signer, publicModulus }: { signer: ReceiptSigner; publicModulus: string },
  fields: Omit<Receipt, 'version' | 'public' | 'signature'>,
): Promise<Receipt> {
  const { id, deadlineHeight, timestamp } = fields;
  const signature = await signer.sign({ id, deadlineHeight, timestamp });
  return buildReceipt({ ...fields, public: publicModulus, signature });
}
