/**
 * Table and prepared statements of the SQLite event store.
 *
 * `position` is the rowid: SQLite hands out max(rowid)+1 and only one writer holds the write lock at a
 * time (across processes too), so positions are committed in increasing order and a reader that has
 * seen position P never sees a new event below P later. Nothing is ever deleted, so no id is reused.
 */
import type Database from 'better-sqlite3';
import type { EventMetadata, RecordedEvent, StreamName } from '../../ports/eventStore.js';

const schema = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY,
  stream   TEXT    NOT NULL,
  revision INTEGER NOT NULL,
  event_id TEXT    NOT NULL UNIQUE,
  type     TEXT    NOT NULL,
  data     TEXT    NOT NULL,
  metadata TEXT    NOT NULL,
  created  INTEGER NOT NULL,
  UNIQUE (stream, revision)
) STRICT;
CREATE TABLE IF NOT EXISTS write_probe (id INTEGER PRIMARY KEY, padding BLOB NOT NULL) STRICT;
`;

/**
 * A row of `events` as the reads select it: an array in the order of EVENT_COLUMNS (better-sqlite3's
 * raw rows), not an object with a property per column that the reads then copied into a
 * RecordedEvent: reads, SQLite's part and the whole `readAll`, take markedly less time.
 */
export type EventRow = [position: bigint, stream: string, revision: bigint, eventId: string, type: string, data: string, metadata: string, created: bigint];
const EVENT_COLUMNS = 'position, stream, revision, event_id, type, data, metadata, created';

export interface StoredRef {
  stream: string;
  revision: bigint;
  position: bigint;
}

export interface NewRow {
  stream: string;
  revision: bigint;
  eventId: string;
  type: string;
  data: string;
  metadata: string;
  created: number;
}

export interface Statements {
  lastOfStream(stream: string): StoredRef | undefined;
  byEventId(eventId: string): StoredRef | undefined;
  insert(row: NewRow): bigint;
  streamPage(stream: string, fromRevision: bigint, limit: number): EventRow[];
  allPage(after: bigint, limit: number): EventRow[];
  head(): bigint;
  countAfter(after: bigint, limit: number): number;
}

export function createSchema(db: Database.Database): void {
  db.exec(schema);
}

/**
 * Statements read 64-bit integers as bigint (safeIntegers) so positions never lose precision.
 *
 * A LIMIT is written `LIMIT +?`, never `LIMIT ?`: SQLite (3.53 here) lets the value bound to a bare
 * LIMIT parameter shape the plan, so binding it marks the statement expired and each run prepares it
 * again, at many times the cost of the page read itself; `+?` is the same integer to SQLite, as an
 * expression it does not replan on. Every upload reads a page of its item's stream and every
 * subscriber a page after each commit.
 */
export function prepareStatements(db: Database.Database): Statements {
  const lastOfStream = db.prepare('SELECT stream, revision, position FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1').safeIntegers(true);
  const byEventId = db.prepare('SELECT stream, revision, position FROM events WHERE event_id = ?').safeIntegers(true);
  const insert = db.prepare('INSERT INTO events (stream, revision, event_id, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)').safeIntegers(true);
  // a page of whole events, as EventRow tuples (what toRecordedEvent takes)
  const eventPage = (where: string) => db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where} LIMIT +?`).safeIntegers(true).raw(true);
  const streamPage = eventPage('stream = ? AND revision >= ? ORDER BY revision');
  const allPage = eventPage('position > ? ORDER BY position');
  const head = db.prepare('SELECT MAX(position) AS head FROM events').safeIntegers(true);
  // Counted over the position index, stopping at the limit.
  const countAfter = db.prepare('SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE position > ? LIMIT +?)');

  return {
    lastOfStream: (stream) => lastOfStream.get(stream) as StoredRef | undefined,
    byEventId: (eventId) => byEventId.get(eventId) as StoredRef | undefined,
    insert: (r) => BigInt(insert.run(r.stream, r.revision, r.eventId, r.type, r.data, r.metadata, r.created).lastInsertRowid),
    streamPage: (stream, fromRevision, limit) => streamPage.all(stream, fromRevision, limit) as EventRow[],
    allPage: (after, limit) => allPage.all(after, limit) as EventRow[],
    head: () => (head.get() as { head: bigint | null }).head ?? 0n,
    countAfter: (after, limit) => (countAfter.get(after, limit) as { n: number }).n,
  };
}

export function toRecordedEvent([position, stream, revision, eventId, type, data, metadata, created]: EventRow): RecordedEvent {
  return {
    id: eventId,
    type,
    data: JSON.parse(data) as unknown,
    metadata: JSON.parse(metadata) as EventMetadata,
    streamName: stream as StreamName,
    revision,
    position,
    created: Number(created),
  };
}
