/**
 * The small-upload ceiling (see small-uploads.ts): a process doing for each `POST` only what an upload
 * service cannot skip, with the service's own parts: it reads the body, verifies the item (the
 * service's verifier: deep hash and signature), signs the receipt (the service's signer, one worker
 * per core, RSA-4096 as a receipt must be) and answers it as JSON. It stores nothing: no byte and no
 * event is written, nothing is synced. A service that keeps what it receipts cannot answer faster on
 * the same machine, so the service's rate is read against this one as well as against the signing
 * capacity. Started with tsx's loader, as the service is; prints `listening on <url>` once ready.
 */
import { availableParallelism } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiptSigner } from '../../../src/receipts/receiptSigner.js';
import { verifyDataItemStream } from '../../../src/verify/index.js';
import { generateRsaJwk } from '../../../src/wallet/rsaJwk.js';

const DEADLINE_HEIGHT = 1_500_000;
const jwk = await generateRsaJwk();
const signer = createReceiptSigner({ jwk, workers: availableParallelism() });

const server = createServer((req, res) => {
  verifyDataItemStream(req, { maxSize: 10 * 1024 * 1024 })
    .then(async (verified) => {
      const timestamp = Date.now();
      const signature = await signer.sign({ id: verified.id, deadlineHeight: DEADLINE_HEIGHT, timestamp });
      const body = JSON.stringify({
        id: verified.id,
        timestamp,
        version: '1.0.0',
        deadlineHeight: DEADLINE_HEIGHT,
        dataCaches: ['arweave.net'],
        fastFinalityIndexes: ['arweave.net'],
        winc: '0',
        owner: verified.owner,
        public: jwk.n,
        signature,
      });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    })
    .catch((error: unknown) => {
      req.resume();
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void signer.close().then(() => process.exit(0));
});
