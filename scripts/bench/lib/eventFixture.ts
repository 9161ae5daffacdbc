import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { createSchema, prepareStatements, type NewRow } from '../../../src/adapters/sqlite/eventStoreSchema.js';

/**
 * A synthetic event history, as the service would have appended it, for the benchmarks that need a
 * large event store (rebuild, start-up): 10,000 accounts credited, then uploads (a reservation, its
 * settlement, and for one upload in five the item's DataItemAccepted).
 */
const ACCOUNTS = 10_000;
const T0 = 1_700_000_000_000;
const b64url = (bytes: number) => randomBytes(bytes).toString('base64url');

/** what the service would have appended, as (stream, type, data) in $all order */
export function* domainEvents(count: number): Generator<[string, string, unknown]> {
  const accounts = Array.from({ length: ACCOUNTS }, () => b64url(32));
  for (const [i, address] of accounts.entries()) {
    yield [`account-${address}`, 'AccountCredited', { address, winc: '1000000000000', creditId: `credit-${i}`, timestamp: T0 + i }];
  }
  for (let upload = 0, emitted = ACCOUNTS; emitted < count; upload++) {
    const address = accounts[upload % ACCOUNTS]!;
    const id = b64url(32);
    const reservationId = randomUUID();
    const timestamp = T0 + ACCOUNTS + upload;
    const winc = String(1000 + (upload % 5000));
    yield [`account-${address}`, 'BalanceReserved', { address, reservationId, winc, dataItemId: id, timestamp }];
    emitted++;
    if (upload % 5 === 0 && emitted < count) {
      yield [`dataItem-${id}`, 'DataItemAccepted', accepted(id, address, reservationId, winc, timestamp)];
      emitted++;
    }
    if (emitted < count) {
      yield [`account-${address}`, 'ReservationSettled', { address, reservationId, winc, dataItemId: id, timestamp }];
      emitted++;
    }
  }
}

/** sizes as the service writes them: a 4096-bit key's modulus and signature are 683 characters */
function accepted(id: string, payer: string, reservationId: string, winc: string, timestamp: number) {
  const owner = b64url(32);
  const receipt = {
    id,
    owner,
    dataCaches: ['arweave.net'],
    fastFinalityIndexes: ['arweave.net'],
    deadlineHeight: 1_500_200,
    timestamp,
    version: '0.2.0',
    winc,
    public: b64url(512),
    signature: b64url(512),
  };
  return {
    id,
    signatureType: 1,
    owner,
    nativeAddress: owner,
    token: 'arweave',
    rawContentLength: 2048,
    payloadDataStart: 1100,
    payloadContentType: 'application/json',
    blobKey: `items/${id}`,
    sha256: randomBytes(32).toString('hex'),
    winc,
    payer,
    reservationId,
    timestamp,
    deadlineHeight: 1_500_200,
    receipt,
  };
}

/** Written through the adapter's own insert statement, in large transactions (no fsync: a fixture). */
export function writeEvents(path: string, count: number): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  createSchema(db);
  const { insert } = prepareStatements(db);
  const insertAll = db.transaction((rows: NewRow[]) => rows.forEach(insert));
  const revisions = new Map<string, bigint>();
  let rows: NewRow[] = [];
  for (const [stream, type, data] of domainEvents(count)) {
    const revision = revisions.get(stream) ?? 0n;
    revisions.set(stream, revision + 1n);
    const metadata = JSON.stringify({ correlationId: randomUUID(), schemaVersion: 1 });
    rows.push({ stream, revision, eventId: randomUUID(), type, data: JSON.stringify(data), metadata, created: T0 });
    if (rows.length === 50_000) (insertAll(rows), (rows = []));
  }
  insertAll(rows);
  db.close();
}
