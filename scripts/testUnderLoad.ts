/**
 * `npm run test:loaded`: the full `npm test`, several times in a row, while other processes keep
 * every core busy, as on a CI machine shared with other work. A suite that passes here does not
 * depend on a quiet machine: its waits are on conditions with deadlines generous enough for load.
 *
 *   npm run test:loaded                      # 3 runs, one busy process per core
 *   npm run test:loaded -- --runs 1 --busy 4
 *   npm run test:loaded -- --command "npx mocha test/e2e/*.test.ts"   # a part of the suite
 *
 * Prints each run's outcome, time and the load average at its end; stops at the first failing run
 * (its output is above) and exits 1, or 0 when every run passed. The busy processes are plain
 * spinning `node` processes at normal priority, stopped with this script.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    busy: { type: 'string', default: String(availableParallelism()) },
    command: { type: 'string', default: 'npm test' },
  },
});
const count = (name: string, text: string) => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not ${JSON.stringify(text)}`);
  return n;
};
const runs = count('runs', values.runs);
const busyCount = count('busy', values.busy);

const busy: ChildProcess[] = [];
const stopBusy = () => {
  for (const child of busy) child.kill('SIGKILL');
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopBusy();
    process.exit(130);
  });
}

function runOnce(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(values.command, { shell: true, stdio: 'inherit' });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  for (let i = 0; i < busyCount; i++) busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  const lines: string[] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      process.stderr.write(`\n=== run ${run} of ${runs}: ${values.command}, with ${busyCount} busy processes\n`);
      const started = performance.now();
      const code = await runOnce();
      const minutes = (performance.now() - started) / 60_000;
      const load = loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
      lines.push(`run ${run}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${minutes.toFixed(1)} min, load average ${load}`);
      process.stderr.write(`=== ${lines[lines.length - 1]}\n`);
      if (code !== 0) break;
    }
  } finally {
    stopBusy();
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return lines.length === runs && lines.every((l) => l.includes('passed')) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    stopBusy();
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
