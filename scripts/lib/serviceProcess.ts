import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * node's arguments that run the service: one process running the compiled JavaScript (`npm run
 * build`), no TypeScript loader in it. The same as `npm start` (package.json) and the image
 * (Dockerfile); test/ops/startCommands.test.ts checks.
 */
export const SERVICE_COMMAND: readonly string[] = ['dist/src/main.js'];

/** what the build compiles (tsconfig.build.json) and copies (scripts/build.mjs) */
const BUILT_FROM = ['src', 'projections'];

/** the newest modification time of anything under `dir` (a file saved, added or deleted), in ms */
const newestUnder = (dir: string): number =>
  Math.max(...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((path) => statSync(join(dir, path)).mtimeMs));

/**
 * Refuses to start a build older than its sources: a test or a benchmark would run yesterday's
 * service. The build's stamp (dist/.built) is dated when the build started.
 */
export function assertBuilt(): void {
  let built: number;
  try {
    built = statSync(join(root, 'dist', '.built')).mtimeMs;
  } catch {
    throw new Error('the service is not built (no dist/.built): run `npm run build`');
  }
  const newest = Math.max(...BUILT_FROM.map((dir) => newestUnder(join(root, dir))));
  if (newest > built) throw new Error("the service's build (dist/) is older than its sources: run `npm run build`");
}

export interface ServiceProcess {
  /** '' for a role that serves no HTTP */
  url: string;
  process: ChildProcess;
  /** what it logged on stderr so far (for a failing test's message) */
  stderr(): string;
  /** SIGKILL, and wait until the process is gone */
  kill(): Promise<void>;
  /** SIGTERM, and wait for a clean exit */
  stop(): Promise<void>;
}

/**
 * node's own options for the service's process from `SERVICE_NODE_ARGS` (separated by spaces), such
 * as `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile a benchmark's service: node refuses
 * `--cpu-prof` in NODE_OPTIONS, which would reach the benchmark's own process as well.
 */
const serviceNodeArgs = (): string[] => process.env['SERVICE_NODE_ARGS']?.split(' ').filter(Boolean) ?? [];

/** The service as `npm start` runs it (dist/src/main.js, built), in a child process on a free port. */
export function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  assertBuilt();
  return startNodeProcess(SERVICE_COMMAND, env);
}

/**
 * node running `command` (its arguments after node's own) from the repository's root, as the service
 * is run: a process that prints `listening on <url>` once it serves, or that its role runs.
 */
export async function startNodeProcess(command: readonly string[], env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...serviceNodeArgs(), ...command], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]!);
      // the roles that serve no HTTP (projector, bundler) say they run instead
      else if (/upload service running/.test(out)) resolve('');
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code} before listening: ${stderr}`)));
  });
  const exited = once(child, 'exit');
  return {
    url,
    process: child,
    stderr: () => stderr,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
