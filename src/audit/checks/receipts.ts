import type { Receipt } from '../../domain/receipt.js';
import { verifyReceipt } from '../../receipts/verifyReceipt.js';
import { arweaveAddress } from '../../wallet/address.js';
import type { AuditEvent, AuditSink } from '../types.js';

export interface ReceiptDeps {
  /** the service wallet's modulus (`n`): every receipt must be signed by it; undefined skips that check */
  servicePublicModulus?: string | undefined;
}

/**
 * Invariant 2, the receipt half: every receipt handed out (at acceptance, and again when a
 * multi-part upload finalizes) verifies as clients verify it, was signed by the service wallet,
 * and says what the acceptance recorded.
 */
export async function checkReceipts(events: AsyncIterable<AuditEvent>, deps: ReceiptDeps, sink: AuditSink): Promise<void> {
  for await (const { event } of events) {
    if (event.type === 'DataItemAccepted') {
      const { data } = event;
      await checkReceipt(data.receipt, data.id, '', deps, sink);
      const differs = fieldDifferences(data.receipt, data);
      if (differs.length > 0) sink.finding({ kind: 'receipt-fields', id: data.id, detail: differs.join('; ') });
    } else if (event.type === 'UploadFinalized') {
      const { data } = event;
      await checkReceipt(data.receipt, data.dataItemId, ` (given by upload ${data.uploadId})`, deps, sink);
      if (data.receipt.id !== data.dataItemId) {
        sink.finding({ kind: 'receipt-fields', id: data.dataItemId, detail: `upload ${data.uploadId} gave a receipt for ${data.receipt.id}` });
      }
    }
  }
}

async function checkReceipt(receipt: Receipt, id: string, where: string, deps: ReceiptDeps, sink: AuditSink): Promise<void> {
  sink.count('receipts');
  if (!(await verifyReceipt(receipt))) sink.finding({ kind: 'receipt-signature', id, detail: `receipt signature does not verify${where}` });
  const key = deps.servicePublicModulus;
  if (key !== undefined && receipt.public !== key) {
    sink.finding({
      kind: 'receipt-key',
      id,
      detail: `receipt signed by ${safeAddress(receipt.public)}, the service wallet is ${arweaveAddress(key)}${where}`,
    });
  }
}

const safeAddress = (modulus: string) => (/^[A-Za-z0-9_-]+$/.test(modulus) ? arweaveAddress(modulus) : JSON.stringify(modulus.slice(0, 16)));

function fieldDifferences(receipt: Receipt, item: { id: string; owner: string; winc: string; deadlineHeight: number; timestamp: number }): string[] {
  const pairs: [string, unknown, unknown][] = [
    ['id', receipt.id, item.id],
    ['owner', receipt.owner, item.owner],
    ['winc', receipt.winc, item.winc],
    ['deadlineHeight', receipt.deadlineHeight, item.deadlineHeight],
    ['timestamp', receipt.timestamp, item.timestamp],
  ];
  return pairs.filter(([, r, e]) => r !== e).map(([name, r, e]) => `${name}: receipt says ${String(r)}, the event says ${String(e)}`);
}
