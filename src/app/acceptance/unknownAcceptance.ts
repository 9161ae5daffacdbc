import type { DataItemId } from '../../domain/ids.js';
import type { DataItemState } from '../../domain/dataItem/decider.js';
import type { DataItemRepository } from './dataItems.js';
import type { Receipt } from '../../domain/receipt.js';
import type { Payment } from '../accounts/payments.js';

type Accepted = Extract<DataItemState, { status: 'accepted' }>;

/** What the item's stream says after an append that ended with AppendOutcomeUnknown. */
export type FoundAcceptance =
  /**
   * this upload's acceptance was written: its reservation is owed (settle it). `position`: of the
   * stream's last event, the acceptance or one after it (what the read models are awaited to show)
   */
  | { kind: 'ours'; receipt: Receipt; position: bigint }
  /** another upload of the item was accepted (with its own payment, or free): this one's reservation is not owed */
  | { kind: 'theirs'; state: Accepted }
  /**
   * not (yet) in the stream, or the stream could not be read: the append may still land. The
   * reservation stays open; the reconciler settles or releases it once its time is up, from the stream.
   */
  | { kind: 'unknown' };

/**
 * Reads the item's stream back to learn whether an append that timed out, was cut or failed
 * without saying why (AppendOutcomeUnknown) wrote this upload's acceptance. An acceptance names the
 * reservation that pays for it, so a paid one is told from a racing upload's by its reservation id;
 * a free one cannot be told apart and is answered as the duplicate it may be (the stored receipt).
 */
export async function findAcceptance(
  items: Pick<DataItemRepository, 'readWithPosition'>,
  id: DataItemId,
  payment: Payment | undefined,
): Promise<FoundAcceptance> {
  let read: { state: DataItemState; position?: bigint };
  try {
    read = await items.readWithPosition(id);
  } catch {
    return { kind: 'unknown' };
  }
  const { state, position } = read;
  if (state.status !== 'accepted' || position === undefined) return { kind: 'unknown' };
  if (payment !== undefined && state.reservationId === payment.reservationId) return { kind: 'ours', receipt: state.receipt, position };
  return { kind: 'theirs', state };
}
