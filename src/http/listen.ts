import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** Serves the app on `host:port` (0: any free port); resolves once listening, with the URL to reach it. */
export async function listen(app: Express, port: number, host: string): Promise<{ server: Server; port: number; url: string }> {
  const server = app.listen(port, host);
  // A 2 GiB body over a slow link takes longer than Node's default 5 minutes for a whole request;
  // an idle connection is what gets cut instead (no byte for two minutes), and headers must come fast.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.setTimeout(120_000);
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
