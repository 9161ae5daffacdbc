import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/**
 * The gateway a benchmarked service reads its block height from (`GET /info`, all the upload path
 * needs of one): the service signs no receipt without a height read from a gateway, so a bench must
 * give it one. One server per bench process, on 127.0.0.1, unreferenced so it never keeps the
 * process alive; it answers anything else 404, so the bundler and gateway pricing stay idle.
 */
let started: Promise<string> | undefined;

export function benchGatewayUrl(height = 1_000): Promise<string> {
  started ??= (async () => {
    const server: Server = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/info') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ network: 'bench', height }));
        return;
      }
      res.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    server.unref();
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  })();
  return started;
}
