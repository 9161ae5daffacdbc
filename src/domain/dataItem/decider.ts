import { match } from 'ts-pattern';
import type { Receipt } from '../receipt.js';
import type { DataItemAccepted, DataItemDamaged, DataItemEvent } from './events.js';

/**
 * The data item aggregate: accepted once; a second acceptance decides nothing and yields the
 * original receipt. Its stored bytes may later be found damaged, and a new upload of the same
 * bytes repairs it.
 */

export type DataItemState =
  | { status: 'absent' }
  | {
      status: 'accepted';
      receipt: Receipt;
      /** what the stored bytes must be: the acceptance's digest and size, under its blob key */
      sha256: string;
      rawContentLength: number;
      blobKey: string;
      payer?: string;
      reservationId?: string;
      uploadId?: string;
      failed?: boolean;
      /** its stored bytes were found not to be the accepted ones, and not repaired since */
      damaged?: boolean;
    };
export const initialState: DataItemState = { status: 'absent' };

export type AcceptDataItem = { type: 'AcceptDataItem'; data: DataItemAccepted['data'] };
/** what the bundler found under the item's blob key; `now` the time it was found */
export type RecordDamage = {
  type: 'RecordDamage';
  data: Pick<DataItemDamaged['data'], 'id' | 'found' | 'size' | 'sha256' | 'planId'> & { now: number };
};
/** a new upload of the item, verified, whose bytes are `sha256` and `size` (already stored under the blob key) */
export type RecordRepair = { type: 'RecordRepair'; data: { id: string; sha256: string; size: number; uploadId?: string; now: number } };
export type DataItemCommand = AcceptDataItem | RecordDamage | RecordRepair;

type Accepted = Extract<DataItemState, { status: 'accepted' }>;

export const evolve = (state: DataItemState, event: DataItemEvent): DataItemState =>
  match(event)
    .returnType<DataItemState>()
    .with({ type: 'DataItemAccepted' }, ({ data }) => ({
      status: 'accepted' as const,
      receipt: data.receipt,
      sha256: data.sha256,
      rawContentLength: data.rawContentLength,
      blobKey: data.blobKey,
      ...(data.payer !== undefined ? { payer: data.payer } : {}),
      ...(data.reservationId !== undefined ? { reservationId: data.reservationId } : {}),
      ...(data.uploadId !== undefined ? { uploadId: data.uploadId } : {}),
    }))
    // where nested items sit changes nothing the item decides
    .with({ type: 'NestedItemsIndexed' }, () => state)
    .with({ type: 'DataItemFailed' }, () => (state.status === 'accepted' ? { ...state, failed: true } : state))
    .with({ type: 'DataItemDamaged' }, () => (state.status === 'accepted' ? { ...state, damaged: true } : state))
    .with({ type: 'DataItemRepaired' }, () => {
      if (state.status !== 'accepted') return state;
      const { damaged: _, ...repaired } = state;
      return repaired;
    })
    .exhaustive();

/** whether what was found contradicts the acceptance: only then is it damage */
const contradicts = (state: Accepted, found: RecordDamage['data']): boolean =>
  match(found.found)
    .with('missing', () => true)
    .with('short', () => found.size !== undefined && found.size < state.rawContentLength)
    .with('long', () => found.size !== undefined && found.size > state.rawContentLength)
    .with('digest', () => found.sha256 !== undefined && found.sha256 !== state.sha256)
    .exhaustive();

export type Decision = { events: DataItemEvent[]; existing?: Receipt };

export const decide = (command: DataItemCommand, state: DataItemState): Decision =>
  match(command)
    .returnType<Decision>()
    .with({ type: 'AcceptDataItem' }, (c) =>
      state.status === 'accepted'
        ? { events: [], existing: state.receipt }
        : { events: [{ type: 'DataItemAccepted' as const, data: c.data }] },
    )
    // Found once: a second finding (a restart looking again) adds nothing. A failed item is in no
    // bundle again: its bytes do not matter any more.
    .with({ type: 'RecordDamage' }, ({ data: { now, ...found } }) =>
      state.status === 'accepted' && !state.failed && !state.damaged && contradicts(state, { ...found, now })
        ? { events: [{ type: 'DataItemDamaged' as const, data: { ...found, blobKey: state.blobKey, timestamp: now } }] }
        : { events: [] },
    )
    // only the accepted bytes repair it: the same id with other bytes is not the item that was paid for
    .with({ type: 'RecordRepair' }, ({ data: { now, size, ...d } }) =>
      state.status === 'accepted' && state.damaged && d.sha256 === state.sha256 && size === state.rawContentLength
        ? { events: [{ type: 'DataItemRepaired' as const, data: { ...d, timestamp: now } }] }
        : { events: [] },
    )
    .exhaustive();
