import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** What the sink received: bodies discarded, only counted. */
export interface SinkTally {
  txs: number;
  chunks: number;
  /** decoded bytes of every chunk's `chunk` field */
  chunkBytes: number;
  /** raw request body bytes */
  bodyBytes: number;
}

export interface SinkGateway {
  url: string;
  tally(): Promise<SinkTally>;
  close(): Promise<void>;
}

/**
 * A gateway that takes everything and keeps nothing: `POST /tx` and `POST /chunk` answered 200,
 * bodies counted and dropped. It runs in a child process of its own, so the benchmark's peak RSS
 * and CPU are the poster's alone, as they would be against a real gateway.
 */
export async function startSinkGateway(): Promise<SinkGateway> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./sinkGatewayChild.mjs', import.meta.url)), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ port: number }];
  const exited = once(child, 'exit');
  return {
    url: `http://127.0.0.1:${ready.port}`,
    async tally() {
      const answer = once(child, 'message') as Promise<[SinkTally]>;
      child.send('tally');
      return (await answer)[0];
    },
    async close() {
      child.kill();
      await exited;
    },
  };
}
