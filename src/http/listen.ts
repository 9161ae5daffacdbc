import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientError } from './clientError.js';
import { limitConnections, type ConnectionLimits } from './connectionLimits.js';
import { deferContinueOnUploads } from './expectContinue.js';

/** Connection-level limits against slow or greedy clients (README, configuration). */
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
    app,
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
  server.on('request', (req, res) => {
    req.once('end', () => req.socket.setTimeout(0));
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

/** Stops accepting, cuts open connections, and waits until the server is closed. */
export async function close(server: Server): Promise<void> {
  server.close();
  server.closeAllConnections();
  await once(server, 'close').catch(() => {});
}
