/**
 * `npm run bench`: every benchmark, one after another, each in a child process of its own with
 * `--json`, gathered into one table (one row per figure: value with its unit, the baseline measured
 * in the same run, the ratio, the target and whether it is met: `TARGETS` in lib/suite.ts, the quick
 * run's own with `--quick`). Writes `bench-results/results.md` and `bench-results/results.json`
 * and prints the table at the end; a full run of every benchmark (no `--quick`, no `--only`) also
 * writes docs/benchmark-results.md (the run's date, machine and commit, the headline figures with
 * their targets, every figure), to be committed with the code it measured.
 *
 *   npm run bench                       # full sizes: about 15 minutes on 2 cores
 *   npm run bench -- --quick            # everything at small sizes: a smoke check of a minute or two
 *   npm run bench -- --only rebuild,startup   # just these (names as in the table's first column)
 *   npm run bench -- --out DIR          # results into DIR instead of ./bench-results
 *
 * Exit code 1 when a benchmark fails to run (non-zero exit, no JSON line, a figure missing from it);
 * a missed target is reported as MISSED in the table and on the last line, not by the exit code.
 * The benchmarks' progress goes to stderr as they run. The rebuild leaves its 1,000,000-event store
 * (read models caught up) for the start-up benchmark, which saves building it twice; it is deleted
 * at the end. Scratch data goes under BENCH_DIR (default ./.bench).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resultsPage, type Row } from './lib/resultsTable.js';
import { suite, TARGETS, type Benchmark, type Json, type RunContext } from './lib/suite.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string', default: join(root, 'bench-results') },
  },
});
const quick = values.quick;
/** a benchmark still running after this is stopped and counted as failed */
const timeLimitMs = (quick ? 5 : 20) * 60_000;

interface Outcome {
  benchmark: string;
  seconds: number;
  json?: Json;
  error?: string;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** the running benchmark's process group: stopped with this process (it runs detached) */
let current: number | undefined;
const stopGroup = (pid: number) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (current !== undefined) stopGroup(current);
    process.exit(130);
  });
}

/**
 * Runs one benchmark as `node --import tsx <script> --json ...` in its own process group (so a
 * timeout also stops the service processes it started); its last stdout line that is JSON is the
 * result, its other output passes through to stderr.
 */
function runOne(bench: Benchmark, ctx: RunContext): Promise<Outcome> {
  const started = performance.now();
  const args = ['--import', 'tsx', join(root, 'scripts/bench', bench.script), '--json', ...bench.args(ctx)];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...bench.env?.(ctx) },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d;
    process.stderr.write(d);
  });
  current = child.pid;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stopGroup(child.pid!);
  }, timeLimitMs);
  return new Promise((resolve) => {
    const done = (error?: string) => {
      clearTimeout(timer);
      current = undefined;
      const seconds = (performance.now() - started) / 1000;
      if (error) return resolve({ benchmark: bench.name, seconds, error });
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.trimStart().startsWith('{'));
      try {
        if (line === undefined) throw new Error('printed no JSON line');
        resolve({ benchmark: bench.name, seconds, json: JSON.parse(line) as Json });
      } catch (e) {
        resolve({ benchmark: bench.name, seconds, error: e instanceof Error ? e.message : String(e) });
      }
    };
    child.once('error', (error) => done(`could not start: ${error.message}`));
    child.once('exit', (code, signal) => {
      if (timedOut) done(`stopped after ${timeLimitMs / 60_000} min`);
      else if (code !== 0) done(`exited with ${code ?? signal}`);
      else done();
    });
  });
}

/** the commit the run measured, and whether the tree had changes beside it (then the page says so) */
function commitMeasured(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') === '' ? '' : ' + uncommitted changes'}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

async function main(): Promise<number> {
  const only = values.only?.split(',').map((s) => s.trim());
  const unknown = only?.filter((name) => !suite.some((b) => b.name === name)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; names: ${suite.map((b) => b.name).join(', ')}`);
  const chosen = suite.filter((b) => !only || only.includes(b.name));

  const benchDir = process.env.BENCH_DIR ?? join(root, '.bench');
  await mkdir(benchDir, { recursive: true });
  const scratch = await mkdtemp(join(benchDir, 'all-'));
  const ctx: RunContext = { quick, sharedStore: join(scratch, 'store'), sharedStoreReady: false };
  const startedAt = new Date();
  const outcomes: Outcome[] = [];
  const rows: Row[] = [];
  try {
    for (const [i, bench] of chosen.entries()) {
      log(`\n=== [${i + 1}/${chosen.length}] ${bench.name}${quick ? ' (quick)' : ''}`);
      const outcome = await runOne(bench, ctx);
      if (outcome.json) {
        try {
          rows.push(...bench.rows(outcome.json, quick ? TARGETS.quick : TARGETS.full));
        } catch (error) {
          outcome.error = `its JSON: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
      if (bench.name === 'rebuild' && !outcome.error) ctx.sharedStoreReady = true;
      outcomes.push(outcome);
      log(`=== ${bench.name}: ${outcome.error ? `FAILED (${outcome.error})` : 'done'} in ${outcome.seconds.toFixed(0)} s`);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  const failed = outcomes.filter((o) => o.error);
  const missed = rows.filter((r) => r.target && !r.target.met);
  const machine = { cpus: availableParallelism(), model: cpus()[0]?.model ?? 'unknown', loadAverageAtEnd: loadavg().map((l) => Number(l.toFixed(2))) };
  const markdown = resultsPage(rows, {
    startedAt,
    seconds: outcomes.reduce((sum, o) => sum + o.seconds, 0),
    quick,
    machine,
    commit: commitMeasured(),
    failed: failed.map((o) => `${o.benchmark} (${o.error})`),
  });
  await mkdir(values.out, { recursive: true });
  await writeFile(join(values.out, 'results.md'), markdown);
  const results = { startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), quick, machine, rows, benchmarks: outcomes };
  await writeFile(join(values.out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const fullRun = !quick && chosen.length === suite.length;
  if (fullRun) await writeFile(join(root, 'docs/benchmark-results.md'), markdown);

  process.stdout.write(`\n${markdown}`);
  const summary = [
    `${rows.filter((r) => r.target?.met).length}/${rows.filter((r) => r.target).length} targets met`,
    missed.length > 0 ? `MISSED: ${missed.length}` : '',
    failed.length > 0 ? `FAILED TO RUN: ${failed.map((o) => o.benchmark).join(', ')}` : '',
  ].filter(Boolean);
  process.stdout.write(`\n${summary.join('; ')} (results in ${values.out}${fullRun ? ' and docs/benchmark-results.md' : ''})\n`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
