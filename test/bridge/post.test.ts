import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postToGateway } from '../../src/app/bridge/post.js';
import { eventually } from '../support/eventually.js';

/**
 * The bridge's post over real sockets: what reaches the gateway, what each answer comes to, and that
 * no gateway can hold the post past its time or keep it reading an answer.
 */
describe('optical bridge: a post to a gateway', () => {
  let server: Server;
  let url: string;
  const connections: { closed: boolean }[] = [];
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  let answer: (req: IncomingMessage, res: ServerResponse) => void;

  beforeEach(async () => {
    connections.length = 0;
    received.length = 0;
    server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (p: Buffer) => parts.push(p));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(parts).toString('utf8') });
        answer(req, res);
      });
    });
    server.on('connection', (socket) => {
      const seen = { closed: false };
      connections.push(seen);
      socket.on('close', () => (seen.closed = true));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ar-io/admin/queue-data-item`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  const gateway = () => ({ url, host: new URL(url).host, key: 'admin-key' });

  it('sends the body as JSON with the bearer key, and posts again over the same connection', async () => {
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"Data item(s) queued"}');
    expect(await postToGateway(gateway(), '[{"id":"a"}]', 5_000)).to.deep.equal({ ok: true, status: 200 });
    expect(await postToGateway(gateway(), '[{"id":"b"}]', 5_000)).to.deep.equal({ ok: true, status: 200 });
    expect(received.map((r) => [r.headers['content-type'], r.headers.authorization, r.headers['content-length'], r.body])).to.deep.equal([
      ['application/json', 'Bearer admin-key', '12', '[{"id":"a"}]'],
      ['application/json', 'Bearer admin-key', '12', '[{"id":"b"}]'],
    ]);
    expect(connections.length).to.equal(1);
  });

  it('retries after 401, 429 and 500, not after 400 or 413', async () => {
    const outcomes = [];
    for (const status of [401, 429, 500, 400, 413]) {
      answer = (_req, res) => res.writeHead(status).end('no');
      outcomes.push(await postToGateway(gateway(), '[]', 5_000));
    }
    expect(outcomes).to.deep.equal(
      [401, 429, 500, 400, 413].map((status) => ({ ok: false, status, error: `answered ${status}`, retry: ![400, 413].includes(status) })),
    );
  });

  it('follows no redirect: the key goes to the configured URL only, and the post is tried again later', async () => {
    answer = (req, res) => (req.url === '/ar-io/admin/queue-data-item' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(200).end('{}'));
    expect(await postToGateway(gateway(), '[]', 5_000)).to.deep.equal({ ok: false, status: 302, error: 'answered 302', retry: true });
    expect(received.length).to.equal(1);
  });

  it('gives up on a gateway that does not answer within the time, and retries later', async () => {
    answer = () => undefined;
    expect(await postToGateway(gateway(), '[]', 200)).to.deep.equal({ ok: false, error: 'no answer within 200 ms', retry: true });
    await eventually(
      async () => connections.every((c) => c.closed),
      (closed) => closed,
      'the held connection closed',
    );
  });

  it('takes the status of an answer whose body never ends, and drops the connection past 64 KiB of it', async () => {
    answer = (_req, res) => {
      res.writeHead(200);
      const more = () => res.write(Buffer.alloc(16 * 1024), () => setImmediate(more));
      more();
    };
    expect(await postToGateway(gateway(), '[]', 60_000)).to.deep.equal({ ok: true, status: 200 });
    await eventually(
      async () => connections.every((c) => c.closed),
      (closed) => closed,
      'the connection dropped',
    );
  });

  it('names an unreachable gateway', async () => {
    const closed = { ...gateway(), url: 'http://127.0.0.1:9/ar-io/admin/queue-data-item' };
    const outcome = await postToGateway(closed, '[]', 5_000);
    expect(outcome).to.deep.include({ ok: false, retry: true });
    expect(outcome.ok === false && outcome.error).to.match(/^unreachable: connect ECONNREFUSED 127\.0\.0\.1:9$/);
  });
});
