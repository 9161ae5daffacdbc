import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface LatencyProxy {
  /** `http://127.0.0.1:<port>`: the target, farther away */
  url: string;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of a local server (the sink gateway) that makes it look far
 * away: every piece of data, each way, is handed on half the round trip after it came, and a new
 * connection is only connected a whole round trip after it was accepted (its handshake). A request
 * and its answer thus take one round trip more, whatever their size, as over a long link with room
 * enough for a 256 KiB chunk (TCP's windows and slow start over that link are not modelled). It
 * runs in a child process of its own, as the sink does, so its CPU is not the poster's.
 */
export async function startLatencyProxy(targetUrl: string, roundTripMs: number): Promise<LatencyProxy> {
  const target = new URL(targetUrl);
  const child: ChildProcess = fork(fileURLToPath(new URL('./latencyProxyChild.mjs', import.meta.url)), [target.port, String(roundTripMs)], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ port: number }];
  const exited = once(child, 'exit');
  return {
    url: `http://127.0.0.1:${ready.port}`,
    async close() {
      child.kill();
      await exited;
    },
  };
}
