import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bestEffort } from '../../src/bestEffort.js';

/**
 * arlocal (a local Arweave gateway) for tests and `npm run demo`, on 127.0.0.1 only, each instance
 * with its own port, database and chain.
 *
 * Each instance runs in a child process of its own, because arlocal is not safe to run twice in
 * one process: its route modules keep database handles in module globals (most swap them when a
 * request for the other instance comes in, so interleaved requests can land in the wrong database;
 * `GET /block/hash/:hash` never swaps), it writes a `./logs` file in the current directory and
 * prints to the console. And a bundle header posted before its chunks starts a loop polling the
 * database until the chunks add up to the data size, which never happens if a chunk was posted
 * twice: that loop takes a core until `stop()`. The child runs in the instance's temp directory
 * (so `./logs` lands there) and ends with it, or with the parent process (its IPC channel closing).
 */
export interface Arlocal {
  /** `http://127.0.0.1:<port>`, no trailing slash */
  readonly url: string;
  /** the instance's temp directory (its database and arlocal's `logs` file); removed by `stop()` */
  readonly dir: string;
  /** mines `blocks` blocks (default 1); transactions posted so far go in the last one */
  mine(blocks?: number): Promise<void>;
  /** adds winston to a wallet's balance: arlocal refuses `POST /tx` from a wallet short of the reward */
  mint(address: string, winston: bigint | number | string): Promise<void>;
  /** a transaction's data as arlocal serves it on `GET /<id>` (`GET /tx/<id>/data` is empty for chunked uploads) */
  data(id: string): Promise<Buffer>;
  /** what arlocal printed (last 64 KiB; it prints errors and goes on): for the message of a failing test */
  output(): string;
  /**
   * kills the process, so the port is closed at once, and removes its directory; safe to call
   * twice. Nothing is lost: the chain and its database are thrown away.
   */
  stop(): Promise<void>;
}

/** Runs in the child: arlocal on 127.0.0.1, port chosen by the system, reported over IPC. */
const CHILD = `
const [arlocalPath, dbPath] = process.argv.slice(1);
const ArLocal = require(arlocalPath).default;
// The port argument is a placeholder: the listen below picks the port.
const arlocal = new ArLocal(1984, false, dbPath, false);
const listen = arlocal.app.listen.bind(arlocal.app);
// arlocal listens on all interfaces, and reads port 0 as 1984. Port 0 here, on loopback, is free
// by construction: no window between finding a free port and binding it.
// Its callback only prints a banner naming the wrong port: left out.
arlocal.app.listen = () => {
  const server = listen(0, '127.0.0.1');
  server.once('listening', () => process.send({ port: server.address().port }));
  server.once('error', (error) => fail(error));
  return server;
};
function fail(error) {
  process.send({ error: String((error && error.stack) || error) }, () => process.exit(1));
}
process.on('disconnect', () => process.exit(0));
// arlocal starts work it never awaits (unbundling a bundle posted in chunks): a failure there is
// printed, as arlocal prints its other errors, rather than ending the gateway in the middle of a test.
process.on('unhandledRejection', (error) => console.error('unhandled rejection in arlocal:', error));
arlocal.start().catch(fail);
`;

const OUTPUT_LIMIT = 64 * 1024;

export async function startArlocal(): Promise<Arlocal> {
  const dir = await mkdtemp(join(tmpdir(), 'arlocal-'));
  const arlocalPath = createRequire(import.meta.url).resolve('arlocal');
  const child = spawn(process.execPath, ['-e', CHILD, arlocalPath, join(dir, 'db')], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  // a failed spawn emits 'error' (which rejects once) and maybe no 'exit': either way the child is gone
  const exited = bestEffort(once(child, 'exit'), 'a failed spawn rejects it: the child is gone either way');

  let port: number;
  try {
    port = await listeningPort(child, exited, () => output);
  } catch (error) {
    await kill(child, exited);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  // A test that fails before its stop() still leaves no process nor directory behind.
  const leftover = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', leftover);

  const url = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;
  return {
    url,
    dir,
    mine: async (blocks = 1) => {
      if (!Number.isSafeInteger(blocks) || blocks < 1) throw new RangeError(`cannot mine ${blocks} blocks`);
      await get(url, `/mine/${blocks}`);
    },
    mint: async (address, winston) => {
      await get(url, `/mint/${address}/${winston}`);
    },
    data: async (id) => Buffer.from(await (await get(url, `/${id}`)).arrayBuffer()),
    output: () => output,
    stop: () => {
      process.removeListener('exit', leftover);
      return (stopping ??= kill(child, exited).then(() => rm(dir, { recursive: true, force: true })));
    },
  };
}

async function listeningPort(child: ChildProcess, exited: Promise<unknown>, output: () => string): Promise<number> {
  const first = once(child, 'message') as Promise<[{ port?: number; error?: string }]>;
  const outcome = await Promise.race([first, exited.then(() => undefined)]);
  const message = outcome?.[0];
  if (typeof message?.port === 'number') return message.port;
  throw new Error(`arlocal did not start: ${message?.error ?? `exited (${child.exitCode ?? child.signalCode})`}\n${output()}`);
}

async function kill(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
}

async function get(url: string, path: string): Promise<Response> {
  const response = await fetch(`${url}${path}`);
  if (response.status !== 200) {
    throw new Error(`arlocal GET ${path} answered HTTP ${response.status}: ${await response.text()}`);
  }
  return response;
}
