import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** How the test gateway answers `GET /info` right now. */
export type GatewayBehaviour =
  { answer: 'height'; height: number } | { answer: 'body'; body: string } | { answer: 'error'; status: number } | { answer: 'never' };

/**
 * A real HTTP server on 127.0.0.1, port 0, standing in for an Arweave gateway. `requests` counts the
 * `GET /info` calls; `nextRequest(n)` resolves when the n-th one arrives. After `close()`
 * connections to its port are refused.
 */
export async function startFakeGateway(initial: GatewayBehaviour) {
  let behaviour = initial;
  let requests = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/info') {
      res.writeHead(404).end();
      return;
    }
    requests++;
    for (const w of waiters.filter((w) => w.count === requests)) w.resolve();
    const b = behaviour;
    if (b.answer === 'never') return;
    if (b.answer === 'error') res.writeHead(b.status, { 'content-type': 'text/plain' }).end('Internal Server Error');
    else {
      const body = b.answer === 'height' ? JSON.stringify({ network: 'arweave.N.1', height: b.height }) : b.body;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get requests() {
      return requests;
    },
    set(next: GatewayBehaviour) {
      behaviour = next;
    },
    nextRequest(count: number): Promise<void> {
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      server.close();
      server.closeAllConnections();
      await once(server, 'close');
    },
  };
}
