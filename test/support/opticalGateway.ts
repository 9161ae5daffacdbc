import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express from 'express';

/**
 * A stand-in for an ar.io gateway's `POST /ar-io/admin/queue-data-item`, which cannot run here. It
 * takes a request exactly as ar-io-node does, each rule from ar-io/ar-io-node src/routes/ar-io.ts at
 * commit dec86f85bb9585658e424f393083bf6d69a7c5e1:
 * 1. `arIoRouter.use('/ar-io/admin', ...)`: unless `req.headers.authorization === \`Bearer ${ADMIN_API_KEY}\``,
 *    401 `Unauthorized`, before anything else (the body is not read);
 * 2. the route's `express.json()` (body-parser's defaults: `type: 'application/json'`, `limit: '100kb'`,
 *    `strict: true`): a larger body 413, JSON that does not parse 400; a body of another type is not
 *    parsed (ar-io-node runs express 4, whose `req.body` is then `{}`; express 5 here leaves it
 *    undefined: both fail rule 3 alike);
 * 3. `dataItemHeaders === undefined || !Array.isArray(dataItemHeaders) || dataItemHeaders.length === 0 ||
 *    !dataItemHeaders.every(isDataItemHeaders)`: 400 `Must provide array of data item headers`, where
 *    `isDataItemHeaders` is: an object, not null, with `data_size`, `id`, `owner`, `owner_address` and
 *    `signature` (`in`);
 * 4. otherwise each header is queued and the answer is `{ message: 'Data item(s) queued' }` (200).
 * Beside the server's rules it can be made to fail as a gateway does: down (connections refused),
 * answering 500, or holding its answers (slow) until released.
 */
export interface QueuedHeader {
  id: string;
  owner: string;
  owner_address: string;
  signature: string;
  data_size: number;
  tags?: { name: string; value: string }[];
  content_type?: string;
  target?: string;
  anchor?: string;
}

export interface OpticalGatewayDouble {
  /** the gateway's base URL (`http://127.0.0.1:port`) and its host */
  url: string;
  host: string;
  /** every header it queued, in order (one per post of it) */
  queued: QueuedHeader[];
  /** the bodies refused by rule 3, as parsed */
  refused: unknown[];
  /** requests answered, by status */
  answers: Map<number, number>;
  /** requests held now (while slow) */
  held(): number;
  /** answer every request that reaches the route (past rule 1) with this status instead (500), or as the server does (undefined) */
  failWith(status: number | undefined): void;
  /** hold the answers to the route until `release` */
  slow(): void;
  release(): void;
  /** refuse connections (the port closed), and take them again on the same port */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

const isDataItemHeaders = (h: unknown): boolean =>
  typeof h === 'object' && h !== null && 'data_size' in h && 'id' in h && 'owner' in h && 'owner_address' in h && 'signature' in h;

export async function startOpticalGateway(adminKey: string): Promise<OpticalGatewayDouble> {
  const queued: QueuedHeader[] = [];
  const refused: unknown[] = [];
  const answers = new Map<number, number>();
  let failure: number | undefined;
  let holding = false;
  const heldAnswers: (() => void)[] = [];
  const count = (status: number) => answers.set(status, (answers.get(status) ?? 0) + 1);

  const app = express();
  app.use('/ar-io/admin', (req, res, next) => {
    if (req.headers.authorization === `Bearer ${adminKey}`) return next();
    count(401);
    res.status(401).send('Unauthorized');
  });
  app.post('/ar-io/admin/queue-data-item', express.json(), (req, res) => {
    const answer = () => {
      if (failure !== undefined) {
        count(failure);
        res.status(failure).send('Internal Server Error');
        return;
      }
      const headers: unknown = req.body;
      if (headers === undefined || !Array.isArray(headers) || headers.length === 0 || !headers.every(isDataItemHeaders)) {
        refused.push(headers);
        count(400);
        res.status(400).send('Must provide array of data item headers');
        return;
      }
      queued.push(...(headers as QueuedHeader[]));
      count(200);
      res.json({ message: 'Data item(s) queued' });
    };
    if (holding) heldAnswers.push(answer);
    else answer();
  });
  // body-parser's errors (413, 400) as express's default handler answers them, counted
  app.use((error: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = error.status ?? 500;
    count(status);
    res.status(status).send(String(status));
  });

  let server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const closeServer = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const release = () => {
    holding = false;
    for (const answer of heldAnswers.splice(0)) answer();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    queued,
    refused,
    answers,
    held: () => heldAnswers.length,
    failWith(status) {
      failure = status;
    },
    slow() {
      holding = true;
    },
    release,
    down: closeServer,
    async up() {
      server = createServer(app);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      release();
      await closeServer().catch(() => {});
    },
  };
}
