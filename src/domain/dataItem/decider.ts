import { match } from 'ts-pattern';
import type { Receipt } from '../receipt.js';
import type { DataItemAccepted, DataItemEvent } from './events.js';

/** The data item aggregate: accepted once; a second acceptance decides nothing and yields the original receipt. */

export type DataItemState =
  | { status: 'absent' }
  | { status: 'accepted'; receipt: Receipt; payer?: string; reservationId?: string; uploadId?: string; failed?: boolean };
export const initialState: DataItemState = { status: 'absent' };

export type AcceptDataItem = { type: 'AcceptDataItem'; data: DataItemAccepted['data'] };
export type DataItemCommand = AcceptDataItem;

export const evolve = (state: DataItemState, event: DataItemEvent): DataItemState =>
  match(event)
    .with({ type: 'DataItemAccepted' }, ({ data }) => ({
      status: 'accepted' as const,
      receipt: data.receipt,
      ...(data.payer !== undefined ? { payer: data.payer } : {}),
      ...(data.reservationId !== undefined ? { reservationId: data.reservationId } : {}),
      ...(data.uploadId !== undefined ? { uploadId: data.uploadId } : {}),
    }))
    // where nested items sit changes nothing the item decides
    .with({ type: 'NestedItemsIndexed' }, () => state)
    .with({ type: 'DataItemFailed' }, () => (state.status === 'accepted' ? { ...state, failed: true } : state))
    .exhaustive();

export type Decision = { events: DataItemEvent[]; existing?: Receipt };

export const decide = (command: DataItemCommand, state: DataItemState): Decision =>
  match(command)
    .with({ type: 'AcceptDataItem' }, (c) =>
      state.status === 'accepted'
        ? { events: [], existing: state.receipt }
        : { events: [{ type: 'DataItemAccepted' as const, data: c.data }] },
    )
    .exhaustive();
