import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

/** A bare `node:http` server in a child process answering every request 200 with `body` (JSON). */
export async function startBareServer(body: string): Promise<BareServer> {
  const child = fork(fileURLToPath(new URL('./bareServerChild.mjs', import.meta.url)), [body], {
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
