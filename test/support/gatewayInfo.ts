import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/**
 * A minimal gateway answering `GET /info` with a block height, for component tests of the upload
 * path (which only needs the height). End-to-end tests use arlocal instead.
 */
export async function startGatewayInfo(
  height: number,
): Promise<{ url: string; setHeight(h: number): void; /** `GET /info` calls so far */ requests(): number; close(): Promise<void> }> {
  let current = height;
  let requests = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/info') {
      requests++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ network: 'test', height: current }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setHeight: (h) => {
      current = h;
    },
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
