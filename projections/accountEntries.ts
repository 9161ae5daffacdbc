import type { HandledEvent, ProjectionDefinition } from './definition.js';

/**
 * Each credit, charge and refund of an account, one document each, for its signed statement
 * (`GET /account/statement/:address`). The id orders an account's entries: `<address>/<time>/<entry
 * id>` (time as 15 digits of ms), so a page is a scan from a cursor, whatever the account holds.
 * A charge is a settled reservation (an open one is no charge yet; a released one never was).
 */
export interface AccountEntry {
  address: string;
  kind: 'credit' | 'charge' | 'refund' | 'recharge';
  /** the credit id of a credit; the item id of the others */
  id: string;
  winc: string;
  timestamp: number;
}

const handles = ['AccountCredited', 'ReservationSettled', 'ChargeRefunded', 'ItemRecharged'] as const;
type EntryEvent = HandledEvent<typeof handles>;

/** the entry an event records, and its key within the account (unique: a credit id, a reservation, an item's failure) */
function entryOf(event: EntryEvent): { entry: AccountEntry; key: string } {
  const { address, winc, timestamp } = event.data;
  switch (event.type) {
    case 'AccountCredited':
      return { entry: { address, kind: 'credit', id: event.data.creditId, winc, timestamp }, key: `credit:${event.data.creditId}` };
    case 'ReservationSettled':
      return { entry: { address, kind: 'charge', id: event.data.dataItemId, winc, timestamp }, key: `charge:${event.data.reservationId}` };
    case 'ChargeRefunded':
      return { entry: { address, kind: 'refund', id: event.data.dataItemId, winc, timestamp }, key: `refund:${event.data.dataItemId}:${event.data.failure}` };
    case 'ItemRecharged':
      return {
        entry: { address, kind: 'recharge', id: event.data.dataItemId, winc, timestamp },
        key: `recharge:${event.data.dataItemId}:${event.data.failure}`,
      };
  }
}

/** below every id of an account's entries, which share this prefix and so sort together */
export const accountEntriesStart = (address: string) => `${address}/`;

export const accountEntryId = (event: EntryEvent) => `${event.data.address}/${String(event.data.timestamp).padStart(15, '0')}/${entryOf(event).key}`;

export const accountEntriesProjection: ProjectionDefinition<AccountEntry, EntryEvent> = {
  name: 'account-entries',
  version: 1,
  handles,
  documentIds: (event) => [accountEntryId(event)],
  reduce: (_doc, event) => entryOf(event).entry,
};
