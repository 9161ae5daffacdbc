import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** What the sink took: posts answered 200, distinct headers in them, requests refused. */
export interface OpticalSinkTally {
  posts: number;
  headers: number;
  refused: number;
}

export interface OpticalSink {
  url: string;
  tally(): Promise<OpticalSinkTally>;
  close(): Promise<void>;
}

/**
 * An ar.io gateway's queue route that takes every well-formed post and keeps only counts
 * (lib/opticalSinkChild.mjs), in a child process of its own so its CPU is not the service's.
 */
export async function startOpticalSink(adminKey: string): Promise<OpticalSink> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./opticalSinkChild.mjs', import.meta.url)), [], {
    execArgv: [],
    env: { SINK_ADMIN_KEY: adminKey },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ port: number }];
  const exited = once(child, 'exit');
  return {
    url: `http://127.0.0.1:${ready.port}`,
    async tally() {
      const answer = once(child, 'message') as Promise<[OpticalSinkTally]>;
      child.send('tally');
      return (await answer)[0];
    },
    async close() {
      child.kill();
      await exited;
    },
  };
}
