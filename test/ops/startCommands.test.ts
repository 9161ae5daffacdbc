import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { SERVICE_COMMAND } from '../../scripts/lib/serviceProcess.js';
import { parseConfig } from '../../src/config.js';
import { eventually } from '../support/eventually.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readText = (file: string) => readFile(join(root, file), 'utf8');

/** The image's command line and environment, as the Dockerfile says (exec form `CMD [...]`, `ENV k=v ...`). */
async function imageCommand(): Promise<{ cmd: string[]; env: Record<string, string> }> {
  const dockerfile = await readText('Dockerfile');
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
  expect(cmd, 'the Dockerfile has an exec-form CMD').not.to.equal(null);
  const env: Record<string, string> = {};
  for (const [, assignments] of dockerfile.matchAll(/^ENV (.*)$/gm)) {
    for (const pair of assignments!.trim().split(/\s+/)) {
      const [name, value] = pair.split('=');
      env[name!] = value!;
    }
  }
  return { cmd: JSON.parse(cmd![1]!) as string[], env };
}

interface Started {
  child: ChildProcess;
  url: string;
  /** stdout and stderr so far (the JSON log lines are on stderr) */
  output(): string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/**
 * Runs a command line as a supervisor would, in a process group of its own (so that what it leaves
 * behind can be found), and resolves once the service says where it listens.
 */
async function startCommand(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(command, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let gone = false;
  void exited.then(() => (gone = true));
  await eventually(() => gone || /listening on http:\/\/\S+/.test(output), Boolean, `${command} ${args.join(' ')} listens`, 90_000);
  const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
  expect(url, `it listens:\n${output}`).to.be.a('string');
  return { child, url: url!, output: () => output, exited };
}

/** whether any process is left in the group the command started (its own and its descendants') */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** what a module imports: `import ... from`, `export ... from`, `import '...'` and `import('...')` */
const IMPORTS = [/^\s*(?:import|export)\b[^;'"]*?\sfrom\s*['"]([^'"\n]+)['"]/gm, /^\s*import\s*['"]([^'"\n]+)['"]/gm, /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g];

/** the compiled service's JavaScript files under `dir` (dist/: the build's output) */
const compiledFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true })).filter((file) => /\.m?js$/.test(file)).map((file) => join(dir, file));

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, 'g'))?.length ?? 0;

/**
 * What an operator and a container runtime do: signal the process they started, nothing else.
 * Nothing may be left running, and the service's own graceful shutdown must have run once.
 */
describe('stopping the service as the README and the image start it', function () {
  this.timeout(180_000);
  let dataDir: string;
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  let started: Started | undefined;
  const serviceEnv = () => ({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    GATEWAY_URL: gateway.url,
    WALLET_FILE: SERVICE_WALLET_FILE,
    BUNDLER_ENABLED: 'false',
    RECEIPT_SIGNER_WORKERS: '1',
    LOG_LEVEL: 'info',
  });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'start-commands-'));
    gateway = await startGatewayInfo(500);
    started = undefined;
  });
  afterEach(async () => {
    // a failed run may leave the service orphaned: end the group this test started
    if (started?.child.pid !== undefined && groupAlive(started.child.pid)) process.kill(-started.child.pid, 'SIGKILL');
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** stops gracefully: exit 0, one "stopping" and "stopped", no forced exit, no process left */
  async function expectGracefulStop(service: Started, signal: string): Promise<void> {
    const [code, exitSignal] = await service.exited;
    expect({ code, signal: exitSignal }, service.output()).to.deep.equal({ code: 0, signal: null });
    await eventually(() => !groupAlive(service.child.pid!), Boolean, 'no process left in the group', 30_000);
    const output = service.output();
    expect(count(output, new RegExp(`"signal":"${signal}","graceMs":\\d+,"message":"stopping"`)), output).to.equal(1);
    expect(count(output, new RegExp(`"signal":"${signal}","message":"stopped"`)), output).to.equal(1);
    expect(output).not.to.include('exiting now');
  }

  it('`npm start`: SIGTERM to the npm process stops the service gracefully, exit 0, no process left', async () => {
    started = await startCommand('npm', ['start'], { ...process.env, ...serviceEnv() } as Record<string, string>);
    expect((await fetch(`${started.url}/health`)).status).to.equal(200);

    process.kill(started.child.pid!, 'SIGTERM');

    await expectGracefulStop(started, 'SIGTERM');
  });

  it("the compiled service collects its start's garbage once, before it says it listens (src/heapTuning.ts)", async () => {
    // V8's --trace-gc names a collection asked for through `gc()` with the reason "testing"
    started = await startCommand(process.execPath, ['--trace-gc', ...SERVICE_COMMAND], { ...process.env, ...serviceEnv() } as Record<string, string>);
    const beforeListening = started.output().split(/listening on http/)[0]!;
    expect(count(beforeListening, /Mark-Compact[^\n]* testing;/), beforeListening).to.equal(1);

    process.kill(started.child.pid!, 'SIGTERM');

    await expectGracefulStop(started, 'SIGTERM');
  });

  it('`npm start`: Ctrl-C (SIGINT to the whole foreground process group, npm included) stops it gracefully once', async () => {
    started = await startCommand('npm', ['start'], { ...process.env, ...serviceEnv() } as Record<string, string>);

    // the terminal signals every process of the group; npm forwards its copy too (npm/cli#5021)
    process.kill(-started.child.pid!, 'SIGINT');

    await expectGracefulStop(started, 'SIGINT');
  });

  it("the image's command line (the Dockerfile's CMD and ENV): SIGTERM stops it gracefully, exit 0, no process left", async () => {
    const { cmd, env } = await imageCommand();
    // the image's environment, with this test's stores, gateway and port
    started = await startCommand(cmd[0]!, cmd.slice(1), { PATH: process.env.PATH ?? '', ...env, ...serviceEnv() });
    expect((await fetch(`${started.url}/health`)).status).to.equal(200);

    // `docker stop` signals the container's first process: the command line's own
    process.kill(started.child.pid!, 'SIGTERM');

    await expectGracefulStop(started, 'SIGTERM');
  });

  it('`npm start`, the image and the test harness run the service with one command line: the compiled JavaScript, no loader', async () => {
    const pkg = JSON.parse(await readText('package.json')) as { scripts: Record<string, string> };
    const { cmd } = await imageCommand();
    // `exec`: npm runs scripts through `sh -c`, which would not pass npm's SIGTERM on
    expect(pkg.scripts['start']).to.equal(`exec node ${SERVICE_COMMAND.join(' ')}`);
    expect(SERVICE_COMMAND).to.deep.equal(['dist/src/main.js']);
    expect(cmd).to.deep.equal(['node', ...SERVICE_COMMAND]);
    // `npm start` builds first; the image builds in a stage of its own and keeps its output
    expect(pkg.scripts['prestart']).to.equal('node scripts/build.mjs');
    const dockerfile = await readText('Dockerfile');
    expect(dockerfile).to.match(/^RUN node scripts\/build\.mjs$/m);
    expect(dockerfile).to.match(/^COPY --from=build \/app\/dist \.\/dist$/m);
  });

  it('the compiled service imports only node, its dependencies and its own files (the image installs with --omit=dev)', async () => {
    const pkg = JSON.parse(await readText('package.json')) as { dependencies: Record<string, string> };
    const imported = new Set<string>();
    for (const file of await compiledFiles(join(root, 'dist'))) {
      const text = await readFile(file, 'utf8');
      for (const pattern of IMPORTS) for (const [, specifier] of text.matchAll(pattern)) imported.add(specifier!);
    }
    const packages = [...imported]
      .filter((specifier) => !specifier.startsWith('.') && !isBuiltin(specifier))
      .map((specifier) =>
        specifier
          .split('/')
          .slice(0, specifier.startsWith('@') ? 2 : 1)
          .join('/'),
      );
    // what the scan sees: a scan that found nothing would pass whatever the service imports
    expect(packages).to.include.members(['express', 'better-sqlite3', 'arweave', 'zod']);
    expect([...new Set(packages)].filter((name) => !(name in pkg.dependencies)).sort()).to.deep.equal([]);
  });

  it("docker compose waits longer than the service's default grace period before it kills a replica", async () => {
    const compose = await readText('docker-compose.yml');
    const service = compose.slice(compose.indexOf('x-service:'), compose.indexOf('\nservices:'));
    const seconds = Number(/^  stop_grace_period: (\d+)s$/m.exec(service)?.[1]);
    expect(seconds * 1000).to.be.greaterThan(parseConfig({}).shutdownGraceMs + 10_000);
  });
});
