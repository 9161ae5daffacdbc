import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface GatewayInfo {
  url: string;
  setHeight(h: number): void;
  /** `GET /info` calls so far */
  requests(): number;
  /** closes the listener (connections refused, those open cut) until `up()` */
  down(): Promise<void>;
  /** listens again, on the same port */
  up(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A minimal gateway answering `GET /info` with a block height, for component tests of the upload
 * path (which only needs the height). End-to-end tests use arlocal instead. `network` is the name it
 * answers with (arlocal's, `arlocal.N.1`, for tests of how the service tells arlocal).
 */
export async function startGatewayInfo(height: number, network = 'test'): Promise<GatewayInfo> {
  let current = height;
  let requests = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/info') {
      requests++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ network, height: current }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const down = async () => {
    if (!server.listening) return;
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return {
    url: `http://127.0.0.1:${port}`,
    setHeight: (h) => {
      current = h;
    },
    requests: () => requests,
    down,
    async up() {
      if (server.listening) return;
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close: down,
  };
}
