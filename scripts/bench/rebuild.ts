/**
 * Rebuild of every read model from position 0 into a fresh SQLite read store, over a fresh SQLite
 * event store of 1,000,000 small events (10,000 accounts credited, then uploads: a reservation, its
 * settlement, and for one upload in five the item's DataItemAccepted). The baseline, measured in the
 * same run on the same file, reads and JSON-parses every event the way the rebuild does, without
 * projecting: the ratio is what projecting costs on top of reading.
 *
 *   npx tsx scripts/bench/rebuild.ts                 # 1,000,000 events under ./.bench
 *   BENCH_EVENTS=200000 BENCH_DIR=/data npx tsx scripts/bench/rebuild.ts
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { createSchema, prepareStatements, type NewRow } from '../../src/adapters/sqlite/eventStoreSchema.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { rebuild } from '../../projections/rebuild.js';
import { allProjections } from '../../projections/index.js';
import { positiveIntEnv } from './lib/settings.js';

const BATCH = 5000;
const ACCOUNTS = 10_000;
const T0 = 1_700_000_000_000;
const b64url = (bytes: number) => randomBytes(bytes).toString('base64url');

/** what the service would have appended, as (stream, type, data) in $all order */
function* domainEvents(count: number): Generator<[string, string, unknown]> {
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
function writeEvents(path: string, count: number): void {
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

/** the baseline: what the rebuild reads, in the same batches, parsed by the adapter, not projected */
async function readEverything(eventStore: EventStore): Promise<number> {
  let count = 0;
  let after: bigint | undefined;
  for (;;) {
    const batch = [];
    for await (const e of eventStore.readAll(after === undefined ? { maxCount: BATCH } : { after, maxCount: BATCH })) batch.push(e);
    count += batch.length;
    after = batch[batch.length - 1]?.position ?? after;
    if (batch.length < BATCH) return count;
  }
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const result = await run();
  return [result, Number(process.hrtime.bigint() - start) / 1e9];
}

async function main(): Promise<void> {
  const count = positiveIntEnv('BENCH_EVENTS', 1_000_000);
  const dir = process.env.BENCH_DIR ?? '.bench';
  await mkdir(dir, { recursive: true });
  const root = await mkdtemp(join(dir, 'rebuild-'));
  try {
    const [, writeSeconds] = await timed(async () => writeEvents(join(root, 'events.db'), count));
    console.log(`wrote ${count} events in ${writeSeconds.toFixed(1)} s`);
    const eventStore = openSqliteEventStore({ path: join(root, 'events.db'), pageSize: BATCH });
    const readStore = openSqliteReadStore({ path: join(root, 'read.db') });
    try {
      const [read, readSeconds] = await timed(() => readEverything(eventStore));
      let lastLine = 0;
      const [result, rebuildSeconds] = await timed(() =>
        rebuild({
          eventStore,
          readStore,
          projections: allProjections,
          batchSize: BATCH,
          onProgress: (done, total, rate) => {
            if (Date.now() - lastLine < 2000) return;
            lastLine = Date.now();
            console.error(`  ${done}/${total} events, ${rate.toFixed(0)} events/s`);
          },
        }),
      );
      const baseline = read / readSeconds;
      const rate = result.events / rebuildSeconds;
      const figures = (events: number, seconds: number, perSecond: number) => `${events} events in ${seconds.toFixed(2)} s, ${perSecond.toFixed(0)} events/s`;
      console.log(`baseline (read + JSON.parse, no projection): ${figures(read, readSeconds, baseline)}`);
      console.log(`rebuild of ${allProjections.length} projections: ${figures(result.events, rebuildSeconds, rate)}`);
      console.log(`ratio rebuild/baseline: ${(rate / baseline).toFixed(2)}; target 20000 events/s: ${rate >= 20_000 ? 'met' : 'NOT met'}`);
      console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
    } finally {
      await readStore.close();
      await eventStore.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
