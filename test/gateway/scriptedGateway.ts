import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** How the scripted gateway answers one method and path. */
export type ScriptedAnswer =
  | { status: number; body?: string; contentType?: string }
  /** never answers */
  | 'hang'
  /** sends the status line and the start of a body, then nothing more */
  | 'stall'
  /** 200 and a body without end, as fast as the client reads it (see `endless`) */
  | 'endless'
  /** 200 declaring a 10 GiB body, of which it sends the first 64 KiB */
  | 'huge';

/** An endless answer being sent: how much went out, and whether the client closed the connection. */
export interface EndlessAnswer {
  path: string;
  sent: number;
  closed: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string;
}

/**
 * A real HTTP server on 127.0.0.1, port 0, answering each `METHOD /path` as scripted, and 404
 * "Not Found" (what Arweave nodes answer for an unknown transaction) to anything else. It records
 * every request. After `close()` connections to its port are refused.
 */
export async function startScriptedGateway() {
  const answers = new Map<string, ScriptedAnswer>();
  const requests: RecordedRequest[] = [];
  const endless: EndlessAnswer[] = [];
  const block = Buffer.alloc(64 * 1024, '1');
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      requests.push({ method: req.method ?? '', path, contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.get(`${req.method} ${path}`) ?? { status: 404, body: 'Not Found' };
      if (answer === 'hang') return;
      if (answer === 'endless') {
        const stream: EndlessAnswer = { path, sent: 0, closed: false };
        endless.push(stream);
        res.writeHead(200, { 'content-type': 'application/json' });
        const pump = () => {
          while (!res.destroyed && res.write(block)) stream.sent += block.length;
        };
        res.on('drain', pump);
        res.once('close', () => (stream.closed = true));
        pump();
        return;
      }
      if (answer === 'huge') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 2 ** 30) }).write(block);
        return;
      }
      if (answer === 'stall') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' }).write('1');
        return;
      }
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' }).end(answer.body ?? '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    endless,
    answer(method: 'GET' | 'POST', path: string, answer: ScriptedAnswer) {
      answers.set(`${method} ${path}`, answer);
    },
    async close() {
      server.close();
      server.closeAllConnections();
      await once(server, 'close');
    },
  };
}

export type ScriptedGateway = Awaited<ReturnType<typeof startScriptedGateway>>;
