import { AppendOutcomeUnknown, WrongExpectedRevision } from '../../ports/eventStore.js';
import { KeyedLock } from '../keyedLock.js';

/** this process's acceptances, one at a time per item id */
const acceptances = new KeyedLock();

export interface UnacceptedBytes {
  /** whether the item's stream shows it accepted (read again, now) */
  accepted(): Promise<boolean>;
  /** takes back the bytes the failed acceptance committed under the item's key */
  withdraw(): Promise<void>;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

/**
 * Runs `acceptance` (which commits the item's bytes under its key, then appends `DataItemAccepted`)
 * alone among this process's acceptances of the same item. When it fails for another reason than a
 * conflict (a store down or full), nothing was accepted, so the bytes it committed are taken back:
 * left there, they would be a blob no event speaks of. Not when the stream shows the item accepted
 * after all: two uploads of one item commit the same bytes under the same key, and those are the
 * winner's. The lock keeps another acceptance of the item in this process from committing or
 * appending between that check and the withdrawal. When the check or the withdrawal fails, or the
 * append's outcome is unknown (AppendOutcomeUnknown: it may still be written after any check), the
 * bytes stay (the audit reports them if no acceptance ever names them): deleting what may be an
 * accepted item's bytes is worse.
 */
export async function acceptOrWithdraw<T>(id: string, acceptance: () => Promise<T>, bytes: UnacceptedBytes): Promise<T> {
  return acceptances.run(id, async () => {
    try {
      return await acceptance();
    } catch (error) {
      // An append of unknown outcome may land after the check: its bytes are kept (see below).
      if (!WrongExpectedRevision.is(error) && !AppendOutcomeUnknown.is(error)) await withdrawUnlessAccepted(id, bytes);
      throw error;
    }
  });
}

/**
 * Runs `task` alone among this process's acceptances of item `id`: an acceptance in flight (its bytes
 * committed, its event not yet appended) finishes first, and none starts until `task` is done. The
 * orphan sweep's last look at an item's stream and its deletion of the item's bytes run so.
 */
export function apartFromAcceptances<T>(id: string, task: () => Promise<T>): Promise<T> {
  return acceptances.run(id, task);
}

async function withdrawUnlessAccepted(id: string, bytes: UnacceptedBytes): Promise<void> {
  try {
    if (!(await bytes.accepted())) await bytes.withdraw();
  } catch (error) {
    bytes.log?.('the bytes of an item whose acceptance failed were left in place', { id, error: String(error) });
  }
}
