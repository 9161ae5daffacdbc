import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface BareServer {
  url: string;
  /** its process, for its CPU time */
  pid: number | undefined;
  close(): Promise<void>;
}

/** A bare `node:http` server in a child process answering every request 200 with `body` (JSON). */
export const startBareServer = (body: string): Promise<BareServer> => startChild('./bareServerChild.mjs', [body], '');

/**
 * The loopback ceiling (loopbackCeilingChild.mjs): a process answering every connection with
 * `length` bytes from memory over HTTP/1.1, as fast as Node writes to a loopback socket. A server
 * that reads its bytes from somewhere cannot send them faster, whatever it does.
 */
export const startLoopbackCeiling = (length: number): Promise<BareServer> => startChild('./loopbackCeilingChild.mjs', [String(length)], '/');

/** forks a server script of this folder that reports `{ port }` once listening on 127.0.0.1 */
async function startChild(script: string, args: string[], path: string): Promise<BareServer> {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), args, {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ port: number }];
  const exited = once(child, 'exit');
  return {
    url: `http://127.0.0.1:${ready.port}${path}`,
    pid: child.pid,
    async close() {
      child.kill();
      await exited;
    },
  };
}
