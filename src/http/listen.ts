import { once } from 'node:events';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerClientError } from './clientError.js';
import { limitConnections, type ConnectionLimits } from './connectionLimits.js';
import { deferContinueOnUploads } from './expectContinue.js';

/** Connection-level limits against slow or greedy clients (docs/configuration.md). */
export interface ServerLimits extends ConnectionLimits {
  /** the request line and headers must arrive within this, counted from the previous request (the first: firstRequestTimeoutMs) */
  headersTimeoutMs: number;
  /** a connection with no byte in either direction for this long, while the service waits on the client, is cut (an idle body included) */
  idleTimeoutMs: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 60_000,
  firstRequestTimeoutMs: 10_000,
  idleTimeoutMs: 120_000,
  maxConnections: 4096,
  maxConnectionsPerClient: 256,
  maxConnectionsPerNetwork: 1024,
};

/**
 * Requests one connection may have in progress at once (HTTP/1.1 pipelining: a client may send
 * requests without waiting for the answers, which go back in order). Past it, a request is answered
 * 429 `Too Many Requests` in its turn and the connection is closed after it.
 */
export const MAX_PIPELINED = 16;

/**
 * Node gives a connection's socket to one response at a time; the ones pipelined behind it wait
 * without a socket, and when the connection closes Node closes the current one only: the others
 * would never emit `close`, and whatever waits on it (the request log, the upload limits, a payload
 * waiting for its turn) would wait forever. They are closed here with their connection, as Node
 * closes the current one. And a connection holds at most MAX_PIPELINED requests in progress.
 */
function closeQueuedWithConnection(app: RequestListener): RequestListener {
  const inProgress = new WeakMap<Socket, Set<ServerResponse>>();
  const closeQueued = (responses: Set<ServerResponse>) => {
    for (const res of responses) {
      if (res.socket || res.writableFinished) continue;
      res.destroy();
      res.emit('close');
    }
    responses.clear();
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    let responses = inProgress.get(socket);
    if (!responses) {
      const created = new Set<ServerResponse>();
      inProgress.set(socket, created);
      socket.once('close', () => closeQueued(created));
      responses = created;
    }
    const open = responses;
    const refused = open.size >= MAX_PIPELINED;
    open.add(res);
    res.once('close', () => open.delete(res));
    if (refused) tooManyPipelined(res);
    else app(req, res);
  };
}

/** the contract's 429 (plain text, Retry-After), answered in the request's turn; the connection then closes */
function tooManyPipelined(res: ServerResponse): void {
  const message = 'Too Many Requests';
  res.statusCode = 429;
  res.statusMessage = message;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Retry-After', '1');
  res.setHeader('Connection', 'close');
  res.end(message);
}

/** Serves the app on `host:port` (0: any free port); resolves once listening, with the URL to reach it. */
export async function listen(
  app: RequestListener,
  port: number,
  host: string,
  limits: ServerLimits = DEFAULT_SERVER_LIMITS,
): Promise<{ server: Server; port: number; url: string }> {
  const server = createServer(
    {
      // Node looks for expired headers this often (default 30 s): a short timeout needs a finer look
      connectionsCheckingInterval: Math.max(25, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    closeQueuedWithConnection(app),
  );
  // A 2 GiB body over a slow link takes longer than Node's default 5 minutes for a whole request:
  // no cap on the whole request; an idle connection is cut instead, slow bodies by the upload
  // routes' rate check (limits.ts), and headers must come fast (slowloris).
  server.requestTimeout = 0;
  server.headersTimeout = limits.headersTimeoutMs;
  server.setTimeout(limits.idleTimeoutMs);
  // The idle timeout waits on the client: once the request's body is in, the service's own work (a
  // commit waiting on the disk, a finalize assembling an item) is not the client idling, so the
  // connection's timer stops until the answer is sent, then keeps the connection honest again.
  // A request without a body (a GET) ends only when read, which may be after its answer: the timer
  // is then the kept-alive connection's and must stay on, or a later answer on it (an item read
  // back) would wait forever on a client that takes nothing. While an answer goes out, the timer
  // runs: Node restarts it each time the socket takes a write; the payload's sender adds the
  // minimum rate (sendBlob.ts).
  server.on('request', (req, res) => {
    req.once('end', () => {
      if (!res.writableFinished) req.socket.setTimeout(0);
    });
    res.once('finish', () => {
      if (!req.socket.destroyed) req.socket.setTimeout(limits.idleTimeoutMs);
    });
  });
  // not Node's maxConnections, which refuses every new connection while the cap is held
  limitConnections(server, limits);
  deferContinueOnUploads(server);
  server.on('clientError', answerClientError);
  server.listen(port, host);
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return { server, port: bound, url: `http://${reachable}:${bound}` };
}
