import Database from 'better-sqlite3';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import type { DataItemAccepted } from '../../src/domain/dataItem/events.js';
import { fromRecorded } from '../../src/domain/events.js';
import { collectionOf, openReservationsProjection, type OpenReservation } from '../../projections/index.js';

/** The stores of a data directory as the crash tests look at them once the service is gone. */

export interface EventLogReading {
  events: number;
  /** what the store reports as its head after the read */
  head: bigint;
  lastPosition: bigint;
  /** positions out of order, unknown types, events their schema refuses */
  problems: string[];
  /** every `DataItemAccepted`, by item id */
  accepted: Map<string, DataItemAccepted['data']>;
  /** reservations the reconciler closed (what the kills left open) */
  reconciled: { settled: number; released: number };
}

/** Opens the embedded event store with the service's own adapter and reads `$all` to its end. */
export async function readEventLog(path: string): Promise<EventLogReading> {
  const store = openSqliteEventStore({ path });
  const reading: EventLogReading = { events: 0, head: 0n, lastPosition: 0n, problems: [], accepted: new Map(), reconciled: { settled: 0, released: 0 } };
  try {
    for await (const recorded of store.readAll()) {
      reading.events += 1;
      const where = `${recorded.streamName}@${recorded.revision} (position ${recorded.position})`;
      if (recorded.position <= reading.lastPosition) reading.problems.push(`${where} comes after position ${reading.lastPosition}`);
      reading.lastPosition = recorded.position;
      try {
        const event = fromRecorded(recorded);
        if (!event) reading.problems.push(`${where}: unknown event type ${recorded.type}`);
        else if (event.type === 'DataItemAccepted') {
          if (reading.accepted.has(event.data.id)) reading.problems.push(`${where}: item ${event.data.id} accepted a second time`);
          reading.accepted.set(event.data.id, event.data);
        } else if (recorded.metadata.correlationId === 'reconciler') {
          if (event.type === 'ReservationSettled') reading.reconciled.settled += 1;
          if (event.type === 'ReservationReleased') reading.reconciled.released += 1;
        }
      } catch (error) {
        reading.problems.push(`${where}: ${recorded.type} does not parse: ${String(error).slice(0, 300)}`);
      }
    }
    reading.head = await store.headPosition();
  } finally {
    await store.close();
  }
  return reading;
}

/** `PRAGMA integrity_check` of one SQLite file: 'ok' when sound, else what SQLite found */
export function integrityOf(path: string): string {
  const db = new Database(path);
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/** the open-reservations read model (reservations neither settled nor released), by reservation id */
export async function openReservations(readDbPath: string): Promise<Record<string, OpenReservation>> {
  const readStore = openSqliteReadStore({ path: readDbPath });
  try {
    const page = await readStore.scan<OpenReservation>(collectionOf(openReservationsProjection), { limit: 10_000 });
    return Object.fromEntries(page.map(({ id, doc }) => [id, doc]));
  } finally {
    await readStore.close();
  }
}
