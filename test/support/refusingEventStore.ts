import type Database from 'better-sqlite3';
import type { EventStore, StreamName } from '../../src/ports/eventStore.js';
import { withAppend } from './appendWrapped.js';

export interface RefusingEventStore {
  store: EventStore;
  /** appends to the streams `which` names are refused by SQLite itself, as on a read-only file; undefined: none */
  refuse(which: ((stream: StreamName) => boolean) | undefined): void;
}

/**
 * TEST DOUBLE around the real SQLite event store (test code only): an append to a stream that
 * `refuse` names runs with the connection made read-only (`PRAGMA query_only`), so SQLite refuses it
 * with a real SQLITE_READONLY and the adapter answers what it answers for a read-only file. This lets a
 * test fail one step of a command (the item's acceptance) while the steps before it are recorded.
 */
export function refusingEventStore(inner: EventStore, db: Database.Database): RefusingEventStore {
  let refused: ((stream: StreamName) => boolean) | undefined;
  const store = withAppend(inner, async (stream, events, expected) => {
    if (!refused?.(stream)) return inner.append(stream, events, expected);
    db.pragma('query_only = ON');
    try {
      return await inner.append(stream, events, expected);
    } finally {
      db.pragma('query_only = OFF');
    }
  });
  return { store, refuse: (which) => (refused = which) };
}
