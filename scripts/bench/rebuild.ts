/**
 * Rebuild of every read model from position 0 into a fresh SQLite read store, over a fresh SQLite
 * event store of 1,000,000 small events (10,000 accounts credited, then uploads: a reservation, its
 * settlement, and for one upload in five the item's DataItemAccepted). The baseline, measured in the
 * same run on the same file, reads and JSON-parses every event the way the rebuild does, without
 * projecting: the ratio is what projecting costs on top of reading.
 *
 *   npx tsx scripts/bench/rebuild.ts                 # 1,000,000 events under ./.bench
 *   BENCH_EVENTS=200000 BENCH_DIR=/data npx tsx scripts/bench/rebuild.ts
 *   npx tsx scripts/bench/rebuild.ts --json --keep-dir DIR   # one JSON line; DIR (new or empty) kept
 *   BENCH_EVENTS=20000 npx tsx scripts/bench/rebuild.ts --read-store mongo
 *
 * `--keep-dir DIR` writes the stores into DIR (events.db, read.db: a service data directory with
 * every read model caught up) and leaves them there, for the start-up benchmark to reuse.
 *
 * `--read-store mongo` rebuilds into the scale-out read store instead: a fresh database on the server
 * at MONGO_URL (a replica set), dropped afterwards, or without MONGO_URL on the in-memory stand-in the
 * tests use (test/support/mongoStandIn.ts). The stand-in is a pure-TypeScript server running in this
 * process, on the same thread as the rebuild: its figure says that the adapter works at this size and
 * how the stand-in copes, not what a real server would give.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openMongoReadStore } from '../../src/adapters/mongo/readStore.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { startMongoStandIn } from '../../test/support/mongoStandIn.js';
import { rebuild } from '../../projections/rebuild.js';
import { allProjections } from '../../projections/index.js';
import { positiveIntEnv } from './lib/settings.js';
import { writeEvents } from './lib/eventFixture.js';
import { emitJson, round, say } from './lib/output.js';
import { TARGETS } from './lib/suite.js';

const BATCH = 5000;
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

/** the read store rebuilt into, what to call it in the output, and how to be rid of it */
async function openReadStore(kind: string, root: string): Promise<{ readStore: ReadStore; label: string; dispose: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const readStore = openSqliteReadStore({ path: join(root, 'read.db') });
    return { readStore, label: 'sqlite', dispose: () => readStore.close() };
  }
  if (kind !== 'mongo') throw new Error(`--read-store must be sqlite or mongo, not ${kind}`);
  const standIn = process.env.MONGO_URL ? undefined : await startMongoStandIn();
  const client = new MongoClient(process.env.MONGO_URL ?? standIn!.url);
  const database = `bench_rebuild_${randomBytes(4).toString('hex')}`;
  const readStore = await openMongoReadStore({ client, database });
  return {
    readStore,
    label: standIn ? 'mongo (the in-memory stand-in, in this process)' : 'mongo (MONGO_URL)',
    dispose: async () => {
      await client.db(database).dropDatabase();
      await readStore.close();
      await client.close();
      await standIn?.stop();
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { json: { type: 'boolean', default: false }, 'keep-dir': { type: 'string' }, 'read-store': { type: 'string', default: 'sqlite' } },
  });
  const count = positiveIntEnv('BENCH_EVENTS', 1_000_000);
  const dir = process.env.BENCH_DIR ?? '.bench';
  const keep = values['keep-dir'];
  if (keep && values['read-store'] !== 'sqlite') throw new Error('--keep-dir keeps a SQLite data directory: it goes with --read-store sqlite only');
  if (keep && existsSync(join(keep, 'events.db'))) throw new Error(`--keep-dir ${keep} already holds an event store`);
  if (keep) await mkdir(keep, { recursive: true });
  else await mkdir(dir, { recursive: true });
  const root = keep ?? (await mkdtemp(join(dir, 'rebuild-')));
  try {
    const [, writeSeconds] = await timed(async () => writeEvents(join(root, 'events.db'), count));
    say(`wrote ${count} events in ${writeSeconds.toFixed(1)} s`);
    const eventStore = openSqliteEventStore({ path: join(root, 'events.db'), pageSize: BATCH });
    const { readStore, label, dispose } = await openReadStore(values['read-store'], root);
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
      const peakRssMiB = process.resourceUsage().maxRSS / 1024;
      const figures = (events: number, seconds: number, perSecond: number) => `${events} events in ${seconds.toFixed(2)} s, ${perSecond.toFixed(0)} events/s`;
      say(`baseline (read + JSON.parse, no projection): ${figures(read, readSeconds, baseline)}`);
      say(`rebuild of ${allProjections.length} projections into ${label}: ${figures(result.events, rebuildSeconds, rate)}`);
      const target = TARGETS.full.rebuildEventsPerSecond;
      say(`ratio rebuild/baseline: ${(rate / baseline).toFixed(2)}; target ${target} events/s (full size, SQLite): ${rate >= target ? 'met' : 'NOT met'}`);
      say(`peak RSS ${peakRssMiB.toFixed(0)} MiB`);
      emitJson({
        benchmark: 'rebuild',
        events: result.events,
        projections: allProjections.length,
        readStore: label,
        seconds: round(rebuildSeconds, 2),
        eventsPerSecond: round(rate, 0),
        baseline: 'read + JSON.parse of every event, no projection',
        baselineEventsPerSecond: round(baseline, 0),
        ratio: round(rate / baseline, 3),
        peakRssMiB: round(peakRssMiB, 0),
        keptDir: keep ?? null,
      });
    } finally {
      await dispose();
      await eventStore.close();
    }
  } finally {
    if (!keep) await rm(root, { recursive: true, force: true });
  }
}

await main();
