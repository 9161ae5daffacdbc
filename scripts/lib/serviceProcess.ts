import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * node's arguments that run the service: one process, TypeScript loaded in it by tsx's loader. The
 * same as `npm start` (package.json) and the image (Dockerfile); test/ops/startCommands.test.ts checks.
 */
export const SERVICE_COMMAND: readonly string[] = ['--import', 'tsx', 'src/main.ts'];

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

/** The service as `npm start` runs it (src/main.ts under tsx), in a child process on a free port. */
export const startServiceProcess = (env: Record<string, string>): Promise<ServiceProcess> => startNodeProcess(SERVICE_COMMAND, env);

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
