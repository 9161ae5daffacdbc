/**
 * Start-up time of the service (`npm start`: the compiled dist/src/main.js, in a child process) on a
 * store of 1,000,000 events whose read models are caught up, against the same start on an empty
 * store, measured in the same run. Each start is timed from spawn to the first 200 of `GET /info`,
 * and to the first 200 of `GET /tx/:id/status` of an item accepted in the store (on the empty store,
 * the first answer to the same query: 404). A start should cost the same whatever the history: the
 * runner resumes from the stored checkpoints, nothing is replayed.
 *
 * Also the service's idle RSS: its resident set 5 s after those first answers, nothing asked of it
 * meanwhile; and, for reference, the same start on the empty store from the TypeScript sources
 * (`node --import tsx src/main.ts`, as the service ran before it was compiled): its time and idle RSS.
 *
 *   npx tsx scripts/bench/startup.ts [--events 1000000] [--runs 3] [--json]
 *   npx tsx scripts/bench/startup.ts --data-dir DIR   # a store left by `rebuild.ts --keep-dir DIR`
 *
 * Without --data-dir the store is made here (the rebuild benchmark's synthetic history, then every
 * read model rebuilt) under BENCH_DIR (default ./.bench) and deleted afterwards. The gateway is
 * the discard port: block height and prices come from no network. Runs alternate between the two
 * stores; medians are reported.
 */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { rebuild } from '../../projections/rebuild.js';
import { allProjections } from '../../projections/index.js';
import { startNodeProcess, startServiceProcess, type ServiceProcess } from '../lib/serviceProcess.js';
import { writeEvents } from './lib/eventFixture.js';
import { emitJson, round, say } from './lib/output.js';
import { rssMiB } from './lib/peakRss.js';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    events: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const since = (t0: number) => performance.now() - t0;

/** the synthetic history, then every read model built from it, as a caught-up service leaves them */
async function makeStore(dir: string, count: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  writeEvents(join(dir, 'events.db'), count);
  const eventStore = openSqliteEventStore({ path: join(dir, 'events.db'), pageSize: 5000 });
  const readStore = openSqliteReadStore({ path: join(dir, 'read.db') });
  try {
    await rebuild({ eventStore, readStore, projections: allProjections, batchSize: 5000 });
  } finally {
    await readStore.close();
    await eventStore.close();
  }
}

/** what the store holds: its event count and the id of the last item accepted */
function storeFacts(dir: string): { events: number; itemId: string } {
  const db = new Database(join(dir, 'events.db'), { readonly: true });
  try {
    const events = (db.prepare('SELECT max(position) AS n FROM events').get() as { n: number | null }).n ?? 0;
    const row = db.prepare(`SELECT stream FROM events WHERE type = 'DataItemAccepted' ORDER BY position DESC LIMIT 1`).get() as { stream: string } | undefined;
    if (!row) throw new Error(`no DataItemAccepted in ${dir}/events.db`);
    return { events, itemId: row.stream.slice('dataItem-'.length) };
  } finally {
    db.close();
  }
}

interface Start {
  infoMs: number;
  statusMs: number;
  /** the service said its read models were still catching up when it started answering */
  catchingUp: boolean;
  /** its resident set IDLE_AFTER_MS after its first answers, in MiB */
  idleRssMiB: number;
}

/** how long after its first answers a service counts as idle */
const IDLE_AFTER_MS = 5000;

/** the service from its TypeScript sources under tsx's loader: how it ran before it was compiled */
const fromSources = (env: Record<string, string>) => startNodeProcess(['--import', 'tsx', 'src/main.ts'], env);

async function timeStart(
  dataDir: string,
  itemId: string,
  expectStatus: 200 | 404,
  start: (env: Record<string, string>) => Promise<ServiceProcess> = startServiceProcess,
): Promise<Start> {
  const t0 = performance.now();
  const service = await start({ DATA_DIR: dataDir, GATEWAY_URL: 'http://127.0.0.1:9' });
  try {
    const first = async (path: string, expected: number) => {
      for (;;) {
        const res = await fetch(`${service.url}${path}`);
        const body = await res.text();
        if (res.status === expected) return { ms: since(t0), body };
        if (since(t0) > 60_000) throw new Error(`GET ${path} still answered ${res.status} ${body} after 60 s`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const info = await first('/v1/info', 200);
    const status = await first(`/v1/tx/${itemId}/status`, expectStatus);
    if (expectStatus === 200 && (JSON.parse(status.body) as { status?: unknown }).status === undefined) {
      throw new Error(`status of ${itemId} answered without a status: ${status.body}`);
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_AFTER_MS));
    return {
      infoMs: info.ms,
      statusMs: status.ms,
      catchingUp: /still catching up/.test(service.stderr()),
      idleRssMiB: await rssMiB(service.process.pid!),
    };
  } finally {
    await service.stop();
  }
}

async function main(): Promise<void> {
  const workDir = process.env.BENCH_DIR ?? '.bench';
  await mkdir(workDir, { recursive: true });
  const scratch = await mkdtemp(join(workDir, 'startup-'));
  try {
    let fullDir = values['data-dir'];
    if (fullDir === undefined) {
      fullDir = join(scratch, 'full');
      say(`writing ${values.events} events and building the read models...`);
      const t0 = performance.now();
      await makeStore(fullDir, Number(values.events));
      say(`store ready in ${(since(t0) / 1000).toFixed(1)} s`);
    } else if (!existsSync(join(fullDir, 'read.db'))) {
      throw new Error(`${fullDir} holds no read store (make it with rebuild.ts --keep-dir)`);
    }
    const { events, itemId } = storeFacts(fullDir);
    // an untimed first start makes the service wallet (an RSA-4096 key); the empty stores get a copy
    say(`warm-up start on ${events} events (creates the wallet)...`);
    await timeStart(fullDir, itemId, 200);
    const full: Start[] = [];
    const empty: Start[] = [];
    const sources: Start[] = [];
    for (let run = 1; run <= runs; run++) {
      const emptyDir = join(scratch, `empty-${run}`);
      await mkdir(emptyDir, { recursive: true });
      await copyFile(join(fullDir, 'wallet.json'), join(emptyDir, 'wallet.json'));
      // alternating order, so neither always starts right after the other
      const order = run % 2 === 1 ? (['full', 'empty', 'tsx'] as const) : (['tsx', 'empty', 'full'] as const);
      for (const which of order) {
        const start =
          which === 'full'
            ? await timeStart(fullDir, itemId, 200)
            : await timeStart(emptyDir, itemId, 404, which === 'tsx' ? fromSources : startServiceProcess);
        ({ full, empty, tsx: sources })[which].push(start);
        say(
          `run ${run} ${which.padEnd(5)} /info ${start.infoMs.toFixed(0)} ms, status ${start.statusMs.toFixed(0)} ms, idle RSS ${start.idleRssMiB.toFixed(0)} MiB${start.catchingUp ? ' (still catching up)' : ''}`,
        );
      }
    }
    const pick = (list: Start[], key: 'infoMs' | 'statusMs' | 'idleRssMiB') => median(list.map((s) => s[key]));
    const result = {
      benchmark: 'startup',
      events,
      runs,
      infoMs: round(pick(full, 'infoMs'), 0),
      statusMs: round(pick(full, 'statusMs'), 0),
      catchingUp: full.some((s) => s.catchingUp),
      baseline: 'the same start on an empty store',
      baselineInfoMs: round(pick(empty, 'infoMs'), 0),
      baselineStatusMs: round(pick(empty, 'statusMs'), 0),
      ratio: round(pick(empty, 'statusMs') / pick(full, 'statusMs'), 3),
      idleRssMiB: round(pick(full, 'idleRssMiB'), 0),
      baselineIdleRssMiB: round(pick(empty, 'idleRssMiB'), 0),
      sourcesInfoMs: round(pick(sources, 'infoMs'), 0),
      sourcesIdleRssMiB: round(pick(sources, 'idleRssMiB'), 0),
    };
    say(`start-up with ${events} events: first /info ${result.infoMs} ms, first status ${result.statusMs} ms (medians of ${runs})`);
    say(`empty store:                first /info ${result.baselineInfoMs} ms, first status ${result.baselineStatusMs} ms; ratio empty/full ${result.ratio}`);
    say(`idle RSS: ${result.idleRssMiB} MiB (${events} events), ${result.baselineIdleRssMiB} MiB (empty store)`);
    say(`from the sources under tsx, empty store: first /info ${result.sourcesInfoMs} ms, idle RSS ${result.sourcesIdleRssMiB} MiB`);
    emitJson(result);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
