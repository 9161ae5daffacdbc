import { createServer, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** What the gateway was posted: transaction headers and chunks, counted, bodies dropped. */
export interface PostTally {
  txs: number;
  txBodyBytes: number;
  chunks: number;
  chunkBodyBytes: number;
}

export interface SettlingGateway {
  url: string;
  tally(): PostTally;
  close(): Promise<void>;
}

/** 64 base64url characters: the shape of a block hash (`GET /tx_anchor`, `block_indep_hash`) */
const BLOCK_HASH = 'B'.repeat(64);
const PREVIOUS_BLOCK = 'A'.repeat(64);

/**
 * A gateway that lets the bundler run a bundle to the end: it answers what the bundler reads
 * (src/adapters/gateway/arweaveGateway.ts: `/info`, `/tx_anchor`, `/price/{bytes}`,
 * `/wallet/{address}/balance`, `/tx/{id}/status`, `/block/hash/{hash}`) in the shapes that file
 * parses, takes every `POST /tx` and `POST /chunk` (200), and counts their bytes. Every posted
 * transaction is at once in a block `confirmations` deep, so a bundle goes planned, prepared,
 * posted, confirmed and permanent within a few bundler passes: the event store, read models and
 * posts of a bundle's whole life are measured without waiting for blocks. The height stays put,
 * which the service's height guard admits. A benchmark's gateway, not a model of Arweave's rules
 * (no funds checked, no chunk proofs checked: bundle-post.ts and the e2e tests on arlocal cover
 * those); it runs in the benchmark's own process.
 */
export async function startSettlingGateway({ height = 1_000, confirmations = 100 } = {}): Promise<SettlingGateway> {
  const tally: PostTally = { txs: 0, txBodyBytes: 0, chunks: 0, chunkBodyBytes: 0 };
  const answer = (res: ServerResponse, type: string, body: string) => res.writeHead(200, { 'content-type': type }).end(body);
  const server: Server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (part: Buffer) => (bytes += part.length));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url === '/tx') {
        tally.txs++;
        tally.txBodyBytes += bytes;
        return answer(res, 'text/plain', 'OK');
      }
      if (req.method === 'POST' && url === '/chunk') {
        tally.chunks++;
        tally.chunkBodyBytes += bytes;
        return answer(res, 'text/plain', 'OK');
      }
      if (req.method !== 'GET') return void res.writeHead(404).end();
      if (url === '/info') return answer(res, 'application/json', JSON.stringify({ network: 'bench', height }));
      if (url === '/tx_anchor') return answer(res, 'text/plain', BLOCK_HASH);
      if (/^\/price\/\d+$/.test(url)) return answer(res, 'text/plain', '1000');
      if (/^\/wallet\/[\w-]{43}\/balance$/.test(url)) return answer(res, 'text/plain', '1000000000000000000');
      if (/^\/tx\/[\w-]{43}\/status$/.test(url)) {
        const status = { block_height: height, block_indep_hash: BLOCK_HASH, number_of_confirmations: confirmations };
        return answer(res, 'application/json', JSON.stringify(status));
      }
      if (url === `/block/hash/${BLOCK_HASH}`)
        return answer(res, 'application/json', JSON.stringify({ timestamp: 1_700_000_000, previous_block: PREVIOUS_BLOCK }));
      res.writeHead(404).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tally: () => ({ ...tally }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
