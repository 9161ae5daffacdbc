import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** How the test gateway answers `GET /price/{bytes}` right now. */
export type PriceBehaviour = { answer: 'price'; body: (bytes: number) => string | Promise<string> } | { answer: 'error'; status: number } | { answer: 'never' };

/** answers `winston` whatever the size */
export const flat = (winston: string): PriceBehaviour => ({ answer: 'price', body: () => winston });

/**
 * A real HTTP server on 127.0.0.1, port 0, standing in for an Arweave gateway. `requested` lists the
 * byte counts asked for, in order; `nextRequest(n)` resolves when the n-th request arrives. After
 * `close()` connections to its port are refused. With `infoHeight`, it also answers `GET /info` with
 * that block height (not counted), so that a whole service can take it as its gateway.
 */
export async function startFakePriceGateway(initial: PriceBehaviour, { infoHeight }: { infoHeight?: number } = {}) {
  let behaviour = initial;
  const requested: number[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let closed: Promise<void> | undefined;
  const server: Server = createServer((req, res) => {
    if (infoHeight !== undefined && req.method === 'GET' && req.url === '/info') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ network: 'test', height: infoHeight }));
      return;
    }
    const bytes = /^\/price\/(\d+)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'GET' || bytes === undefined) {
      res.writeHead(404).end();
      return;
    }
    // No keep-alive: once closed, the next request is refused (ECONNREFUSED) rather than racing a
    // pooled socket the client has not yet seen closed (UND_ERR_SOCKET).
    res.shouldKeepAlive = false;
    requested.push(Number(bytes));
    for (const w of waiters.filter((w) => w.count === requested.length)) w.resolve();
    const b = behaviour;
    if (b.answer === 'never') return;
    if (b.answer === 'error') {
      res.writeHead(b.status, { 'content-type': 'text/plain' }).end('Internal Server Error');
      return;
    }
    void Promise.resolve(b.body(Number(bytes))).then((body) => res.writeHead(200, { 'content-type': 'text/plain' }).end(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requested,
    get requests() {
      return requested.length;
    },
    set(next: PriceBehaviour) {
      behaviour = next;
    },
    nextRequest(count: number): Promise<void> {
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    /** idempotent: a test may close it early, afterEach closes it again */
    close(): Promise<void> {
      closed ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

export type FakePriceGateway = Awaited<ReturnType<typeof startFakePriceGateway>>;
