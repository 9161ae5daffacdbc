/**
 * Group commit of the SQLite event store: N single-event appends to N streams issued at once (as N
 * concurrent HTTP requests would) vs. the same N appends issued one after another, which is one
 * transaction, so one fsync, per append. Same adapter, same disk, same run.
 *
 *   npx tsx scripts/bench/event-store-appends.ts     # 1000 appends, 3 rounds of each, under ./.bench
 *   BENCH_APPENDS=5000 BENCH_ROUNDS=5 BENCH_DIR=/data npx tsx scripts/bench/event-store-appends.ts
 *   npx tsx scripts/bench/event-store-appends.ts --json   # the figures as one JSON line on stdout
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { streamName, type NewEvent, type StreamName } from '../../src/ports/eventStore.js';
import { positiveIntEnv } from './lib/settings.js';
import { emitJson, round, say } from './lib/output.js';
import { median } from './lib/stats.js';

function settings() {
  const int = positiveIntEnv;
  return {
    appends: int('BENCH_APPENDS', 1000),
    rounds: int('BENCH_ROUNDS', 3),
    dir: process.env.BENCH_DIR ?? '.bench',
  };
}

/** A DataItemAccepted-sized event (about 600 bytes of JSON), made before timing starts. */
function work(count: number): { stream: StreamName; event: NewEvent }[] {
  return Array.from({ length: count }, (_, i) => ({
    stream: streamName(`dataItem-${randomUUID()}`),
    event: {
      id: randomUUID(),
      type: 'DataItemAccepted',
      data: {
        owner: 'x'.repeat(344),
        payloadSize: 1024 + i,
        blobKey: `items/${randomUUID()}`,
        sha256: 'f'.repeat(64),
        winc: '123456789',
      },
      metadata: { correlationId: randomUUID(), schemaVersion: 1 },
    },
  }));
}

type Mode = 'sequential' | 'concurrent';

async function run(mode: Mode, path: string, count: number) {
  const items = work(count);
  const store = openSqliteEventStore({ path });
  try {
    const start = process.hrtime.bigint();
    if (mode === 'concurrent') {
      await Promise.all(items.map(({ stream, event }) => store.append(stream, [event], 'no_stream')));
    } else {
      for (const { stream, event } of items) await store.append(stream, [event], 'no_stream');
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { rate: count / seconds, transactions: store.stats().transactions };
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const { appends, rounds, dir } = settings();
  await mkdir(dir, { recursive: true });
  const root = await mkdtemp(join(dir, 'event-store-appends-'));
  const rates: Record<Mode, number[]> = { sequential: [], concurrent: [] };
  const transactions: Record<Mode, number[]> = { sequential: [], concurrent: [] };
  try {
    for (let round = 1; round <= rounds; round++) {
      // alternate which goes first, so neither always meets a disk still flushing the other's writes
      const order: Mode[] = round % 2 === 1 ? ['sequential', 'concurrent'] : ['concurrent', 'sequential'];
      for (const mode of order) {
        const result = await run(mode, join(root, `${mode}-${round}.sqlite`), appends);
        rates[mode].push(result.rate);
        transactions[mode].push(result.transactions);
        say(`round ${round} ${mode.padEnd(10)} ${result.rate.toFixed(0).padStart(7)} appends/s  ${result.transactions} transactions`);
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const baseline = median(rates.sequential);
  const grouped = median(rates.concurrent);
  say(`\n${appends} single-event appends to ${appends} streams, median of ${rounds} rounds`);
  say(`baseline (one after another): ${baseline.toFixed(0)} appends/s, ${median(transactions.sequential)} transactions`);
  say(`group commit (all at once):   ${grouped.toFixed(0)} appends/s, ${median(transactions.concurrent)} transactions`);
  say(`ratio group commit/baseline:  ${(grouped / baseline).toFixed(1)}`);
  emitJson({
    benchmark: 'event-store-appends',
    appends,
    rounds,
    appendsPerSecond: round(grouped, 0),
    transactions: median(transactions.concurrent),
    baseline: 'the same appends one after another (one transaction and fsync each)',
    baselineAppendsPerSecond: round(baseline, 0),
    ratio: round(grouped / baseline, 2),
  });
}

await main();
