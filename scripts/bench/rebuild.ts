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
 *
 * `--keep-dir DIR` writes the stores into DIR (events.db, read.db: a service data directory with
 * every read model caught up) and leaves them there, for the start-up benchmark to reuse.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { rebuild } from '../../projections/rebuild.js';
import { allProjections } from '../../projections/index.js';
import { positiveIntEnv } from './lib/settings.js';
import { writeEvents } from './lib/eventFixture.js';
import { emitJson, round, say } from './lib/output.js';

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

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, 'keep-dir': { type: 'string' } } });
  const count = positiveIntEnv('BENCH_EVENTS', 1_000_000);
  const dir = process.env.BENCH_DIR ?? '.bench';
  const keep = values['keep-dir'];
  if (keep && existsSync(join(keep, 'events.db'))) throw new Error(`--keep-dir ${keep} already holds an event store`);
  if (keep) await mkdir(keep, { recursive: true });
  else await mkdir(dir, { recursive: true });
  const root = keep ?? (await mkdtemp(join(dir, 'rebuild-')));
  try {
    const [, writeSeconds] = await timed(async () => writeEvents(join(root, 'events.db'), count));
    say(`wrote ${count} events in ${writeSeconds.toFixed(1)} s`);
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
      const peakRssMiB = process.resourceUsage().maxRSS / 1024;
      const figures = (events: number, seconds: number, perSecond: number) => `${events} events in ${seconds.toFixed(2)} s, ${perSecond.toFixed(0)} events/s`;
      say(`baseline (read + JSON.parse, no projection): ${figures(read, readSeconds, baseline)}`);
      say(`rebuild of ${allProjections.length} projections: ${figures(result.events, rebuildSeconds, rate)}`);
      say(`ratio rebuild/baseline: ${(rate / baseline).toFixed(2)}; target 20000 events/s: ${rate >= 20_000 ? 'met' : 'NOT met'}`);
      say(`peak RSS ${peakRssMiB.toFixed(0)} MiB`);
      emitJson({
        benchmark: 'rebuild',
        events: result.events,
        projections: allProjections.length,
        seconds: round(rebuildSeconds, 2),
        eventsPerSecond: round(rate, 0),
        baseline: 'read + JSON.parse of every event, no projection',
        baselineEventsPerSecond: round(baseline, 0),
        ratio: round(rate / baseline, 3),
        peakRssMiB: round(peakRssMiB, 0),
        keptDir: keep ?? null,
      });
    } finally {
      await readStore.close();
      await eventStore.close();
    }
  } finally {
    if (!keep) await rm(root, { recursive: true, force: true });
  }
}

await main();
