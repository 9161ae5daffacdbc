import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTP proxy on 127.0.0.1 in front of a gateway (arlocal), whose routes can each be switched
 * between passing through and a fault, to see what the bundler does when the gateway misbehaves:
 *
 * - `refuse`: the connection is cut, the request read but never answered (the client sees a reset);
 * - `error`: 500, nothing forwarded;
 * - `slow`: the answer comes after `slowMs` (past the client's timeout, set shorter); a request
 *   whose client gave up meanwhile is never forwarded;
 * - `drop`: `POST /tx` and `POST /chunk` answered 200 and never forwarded, as a gateway that loses
 *   what it accepted (the transaction is never mined: its status stays "not found");
 * - `lose`: forwarded, then the connection cut instead of the answer (done, but the client can't tell).
 *
 * `down()` closes the listener itself (connections refused) until `up()`.
 *
 * A chunk arlocal already took is answered 200 and not forwarded again: a real gateway takes a chunk
 * twice harmlessly, while arlocal appends the copy, which corrupts the data it serves and leaves its
 * unbundling loop spinning a core. Every request is recorded in `seen`, with the transaction id of a
 * `POST /tx` and the data root and offset of a `POST /chunk`.
 */
export type GatewayRoute = 'price' | 'anchor' | 'info' | 'tx' | 'chunk' | 'status' | 'other';
export type GatewayFault = 'pass' | 'refuse' | 'error' | 'slow' | 'drop' | 'lose';

export interface SeenRequest {
  route: GatewayRoute;
  method: string;
  path: string;
  fault: GatewayFault;
  /** the request reached the gateway behind */
  forwarded: boolean;
  /** the status the client was answered (none when cut or abandoned) */
  status?: number;
  /** `POST /tx`: the transaction's id */
  txId?: string;
  /** `POST /chunk`: `<data_root>:<offset>` */
  chunk?: string;
}

export interface FaultyGateway {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly seen: readonly SeenRequest[];
  /** switches routes to a fault, from the `after`-th next request of each route on (default: the next) */
  set(routes: GatewayRoute | readonly GatewayRoute[], fault: GatewayFault, options?: { after?: number }): void;
  /** every route back to pass-through */
  heal(): void;
  /** how many `POST /tx` the proxy received per transaction id (forwarded or not) */
  txPosts(): Map<string, number>;
  /** how many times each chunk (`<data_root>:<offset>`) was sent by the client */
  chunkPosts(): Map<string, number>;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

const routeOf = (method: string, path: string): GatewayRoute => {
  if (method === 'GET' && path.startsWith('/price/')) return 'price';
  if (method === 'GET' && path === '/tx_anchor') return 'anchor';
  if (method === 'GET' && path === '/info') return 'info';
  if (method === 'POST' && path === '/tx') return 'tx';
  if (method === 'POST' && path === '/chunk') return 'chunk';
  if (method === 'GET' && /^\/tx\/[A-Za-z0-9_-]{43}\/status$/.test(path)) return 'status';
  return 'other';
};

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function jsonField(body: Buffer, ...names: string[]): string | undefined {
  try {
    const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    const values = names.map((n) => json[n]);
    return values.every((v) => typeof v === 'string') ? values.join(':') : undefined;
  } catch {
    return undefined;
  }
}

export async function startFaultyGateway(target: string, { slowMs = 2_000 } = {}): Promise<FaultyGateway> {
  const faults = new Map<GatewayRoute, { fault: GatewayFault; after: number }>();
  const seen: SeenRequest[] = [];
  const forwardedChunks = new Set<string>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const faultFor = (route: GatewayRoute): GatewayFault => {
    const rule = faults.get(route);
    if (!rule) return 'pass';
    if (rule.after > 0) {
      rule.after--;
      return 'pass';
    }
    return rule.fault;
  };

  async function forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; type: string | null; bytes: Buffer }> {
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {},
      ...(req.method === 'POST' ? { body: new Uint8Array(body) } : {}),
    });
    return { status: answer.status, type: answer.headers.get('content-type'), bytes: Buffer.from(await answer.arrayBuffer()) };
  }

  function reply(res: ServerResponse, record: SeenRequest, status: number, type: string | null, bytes: Buffer | string) {
    record.status = status;
    res.writeHead(status, type ? { 'content-type': type } : {});
    res.end(bytes);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0]!;
    const route = routeOf(method, path);
    const fault = faultFor(route);
    const record: SeenRequest = { route, method, path, fault, forwarded: false };
    seen.push(record);
    const body = await bodyOf(req);
    if (route === 'tx') record.txId = jsonField(body, 'id');
    if (route === 'chunk') record.chunk = jsonField(body, 'data_root', 'offset');
    // cut once the request is in (so it is counted), before any answer
    if (fault === 'refuse') {
      req.socket.destroy();
      return;
    }
    if (fault === 'error') return reply(res, record, 500, 'text/plain', 'Internal Server Error');
    if (fault === 'drop' && (route === 'tx' || route === 'chunk')) return reply(res, record, 200, 'text/plain', route === 'tx' ? 'OK' : '{}');
    if (fault === 'slow') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, slowMs);
        timers.add(timer);
        res.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (res.destroyed || req.socket.destroyed) return;
    }
    if (record.chunk !== undefined && forwardedChunks.has(record.chunk)) return reply(res, record, 200, 'application/json', '{}');
    record.forwarded = true;
    const answer = await forward(req, body);
    if (record.chunk !== undefined && answer.status === 200) forwardedChunks.add(record.chunk);
    if (fault === 'lose') {
      req.socket.destroy();
      return;
    }
    reply(res, record, answer.status, answer.type, answer.bytes);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const closeListener = async () => {
    if (!server.listening) return;
    const closed = once(server, 'close');
    server.close();
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  const count = (key: (r: SeenRequest) => string | undefined) => {
    const counts = new Map<string, number>();
    for (const r of seen) {
      const k = key(r);
      if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return counts;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    set(routes, fault, { after = 0 } = {}) {
      for (const route of typeof routes === 'string' ? [routes] : routes) faults.set(route, { fault, after });
    },
    heal: () => faults.clear(),
    txPosts: () => count((r) => r.txId),
    chunkPosts: () => count((r) => r.chunk),
    down: closeListener,
    async up() {
      if (server.listening) return;
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await closeListener();
    },
  };
}
