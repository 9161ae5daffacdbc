import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type DataFault = 'pass' | 'flip' | 'missing' | 'hang';

/**
 * A proxy in front of arlocal passing every request through (bodies buffered: test data is small),
 * but a transaction's data (`GET /<43-character id>`) as `fault` says: `flip` changes one bit of the
 * byte at `flipAt` of the answer, `missing` answers 404 as a gateway that lost the data, `hang`
 * never answers (the client's time limit fires). `dataReads` counts the reads of data.
 */
export async function startLyingGateway(upstream: string) {
  const state = { fault: 'pass' as DataFault, flipAt: 0, dataReads: 0 };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const isData = req.method === 'GET' && /^\/[A-Za-z0-9_-]{43}$/.test(req.url ?? '');
    if (isData) state.dataReads += 1;
    if (isData && state.fault === 'hang') return;
    if (isData && state.fault === 'missing') return void res.writeHead(404).end('Not Found');
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'range', 'accept']) if (req.headers[name]) headers[name] = String(req.headers[name]);
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method!,
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (isData && state.fault === 'flip' && body.length > state.flipAt) body[state.flipAt]! ^= 0x01;
    const out: Record<string, string> = {};
    for (const name of ['content-type', 'content-range']) {
      const value = answer.headers.get(name);
      if (value) out[name] = value;
    }
    res.writeHead(answer.status, out).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
