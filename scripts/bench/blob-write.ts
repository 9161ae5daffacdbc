/**
 * Writing a blob through the fs blob store's writer vs. plain fs writes of the same bytes, measured in
 * the same run on the same disk. Both write 1 MiB chunks into a fresh `<dir>/.tmp/` and end with
 * fdatasync (on a freshly written file fsync and fdatasync flush the same things); the writer's
 * commit also renames the file into place and fsyncs the directories.
 *
 * Each run is timed in two phases: writing (into the page cache: the adapter's own cost shows here)
 * and making durable (the disk's cost). Virtual disks vary a lot from one flush to the next, so
 * the two contenders run back to back in alternating order and the ratio is taken per round.
 *
 *   npx tsx scripts/bench/blob-write.ts            # 1 GiB, 5 rounds, under ./.bench
 *   BENCH_MIB=256 BENCH_ROUNDS=9 BENCH_DIR=/data npx tsx scripts/bench/blob-write.ts
 *   BENCH_KEEP=1 npx tsx scripts/bench/blob-write.ts   # keep blobs until the end: rounds x 2 GiB of disk
 *   npx tsx scripts/bench/blob-write.ts --json         # the figures as one JSON line on stdout
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { positiveIntEnv } from './lib/settings.js';
import { emitJson, round, say } from './lib/output.js';
import { median } from './lib/stats.js';

const MiB = 1024 * 1024;

interface Phases {
  write: number;
  durable: number;
}
type Contender = (root: string, chunks: Iterable<Buffer>) => Promise<Phases>;

function settings() {
  const int = positiveIntEnv;
  return {
    mib: int('BENCH_MIB', 1024),
    rounds: int('BENCH_ROUNDS', 5),
    dir: process.env.BENCH_DIR ?? '.bench',
    // keeping every blob until the end makes each run land on blocks the disk has not just freed
    keep: process.env.BENCH_KEEP === '1',
  };
}

/** 1 MiB chunks cycling over a 16 MiB pool: the disk sees distinct bytes, the CPU makes none per run. */
function* chunks(pool: Buffer[], count: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) yield pool[i % pool.length] as Buffer;
}

const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

const baseline: Contender = async (root, source) => {
  await mkdir(join(root, '.tmp'), { recursive: true });
  const handle = await open(join(root, '.tmp', 'plain'), 'wx');
  try {
    const start = process.hrtime.bigint();
    for (const chunk of source) await handle.write(chunk);
    const write = seconds(start);
    const flush = process.hrtime.bigint();
    await handle.datasync();
    return { write, durable: seconds(flush) };
  } finally {
    await handle.close();
  }
};

const blobWriter: Contender = async (root, source) => {
  const store = await openFsBlobStore({ root });
  try {
    const writer = await store.createWriter();
    const start = process.hrtime.bigint();
    for (const chunk of source) await writer.write(chunk);
    const write = seconds(start);
    const flush = process.hrtime.bigint();
    await writer.commit('items/bench');
    return { write, durable: seconds(flush) };
  } finally {
    await store.close();
  }
};

const rate = (mib: number, s: number) => `${(mib / s).toFixed(0).padStart(5)} MiB/s`;

async function main(): Promise<void> {
  const { mib, rounds, dir, keep } = settings();
  await mkdir(dir, { recursive: true });
  const work = await mkdtemp(join(dir, 'blob-write-'));
  const pool = Array.from({ length: 16 }, () => randomBytes(MiB));
  const results = { baseline: [] as Phases[], writer: [] as Phases[] };
  const contenders = { baseline, writer: blobWriter };
  try {
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? (['baseline', 'writer'] as const) : (['writer', 'baseline'] as const);
      for (const which of order) {
        const root = join(work, `${which}-${round}`);
        const phases = await contenders[which](root, chunks(pool, mib));
        results[which].push(phases);
        // freed at once by default, so disk use stays at one blob whatever the number of rounds
        if (!keep) await rm(root, { recursive: true, force: true });
        const total = phases.write + phases.durable;
        say(`round ${round} ${which.padEnd(8)} total ${rate(mib, total)}  write ${rate(mib, phases.write)}  ` + `durable ${phases.durable.toFixed(2)} s`);
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const totals = (list: Phases[]) => list.map((p) => mib / (p.write + p.durable));
  const writes = (list: Phases[]) => list.map((p) => mib / p.write);
  const ratios = (of: (list: Phases[]) => number[]) => {
    const w = of(results.writer);
    const b = of(results.baseline);
    return median(w.map((value, i) => value / (b[i] ?? NaN))).toFixed(3);
  };
  say(`\n${mib} MiB in 1 MiB chunks, medians of ${rounds} rounds`);
  say(`                      baseline (fs write + fdatasync)   blob writer (write + commit)   ratio`);
  say(
    `write + durable   ${rate(median(totals(results.baseline)), 1).padStart(24)}  ${rate(median(totals(results.writer)), 1).padStart(28)}   ${ratios(totals)}`,
  );
  say(
    `write phase only  ${rate(median(writes(results.baseline)), 1).padStart(24)}  ${rate(median(writes(results.writer)), 1).padStart(28)}   ${ratios(writes)}`,
  );
  emitJson({
    benchmark: 'blob-write',
    mib,
    rounds,
    writerMiBps: round(median(totals(results.writer))),
    baseline: 'fs write + fdatasync of the same bytes',
    baselineMiBps: round(median(totals(results.baseline))),
    ratio: Number(ratios(totals)),
    writePhaseRatio: Number(ratios(writes)),
  });
}

await main();
