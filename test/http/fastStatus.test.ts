import { request, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { withFastStatus } from '../../src/http/fastStatus.js';
import type { TxStatusDocument } from '../../projections/txStatus.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { testServiceConfig } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { eventually } from '../support/eventually.js';

interface RawAnswer {
  status: number;
  /** name and value pairs as sent, in order */
  headers: [string, string][];
  body: string;
}

/** one request over a connection of its own, the answer's headers exactly as they came */
function rawRequest(url: string, method: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode!, headers: pairs, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const withoutDate = (answer: RawAnswer) => ({ ...answer, headers: answer.headers.filter(([name]) => name.toLowerCase() !== 'date') });

describe('status queries served ahead of the router', function () {
  this.timeout(60_000);
  let service: RunningService;
  let dataDir: string;
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  const lines: string[] = [];
  const requestLine = (requestId: string) =>
    eventually(
      () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.message === 'request' && r.requestId === requestId),
      (line) => line !== undefined,
      `the request line of ${requestId}`,
    ) as Promise<Record<string, unknown>>;
  let id: string;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fast-status-'));
    gateway = await startGatewayInfo(1_000);
    const config = testServiceConfig(dataDir, gateway.url, { LOG_LEVEL: 'info' });
    service = await startService(
      config,
      createLogger(config.logLevel, (line) => lines.push(line)),
    );
    const item = await signedItem(signers.arweave(), 'asked after');
    id = item.id;
    const res = await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(item.getRaw()), headers: { 'content-type': 'application/octet-stream' } });
    expect(res.status).to.equal(200);
    await eventually(
      async () => (await fetch(`${service.url}/tx/${id}/status`)).status,
      (status) => status === 200,
      'the item projected',
    );
  });
  after(async () => {
    await service.stop();
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  for (const prefix of ['', '/v1']) {
    for (const method of ['GET', 'HEAD']) {
      for (const origin of [undefined, 'https://app.example']) {
        it(`answers ${method} ${prefix}/tx/:id/status${origin ? ' from a browser origin' : ''} exactly as the router answers it, with the same log line`, async () => {
          // one request id per case, the same length for both (the log line counts the bytes out)
          const fastId = `fast-${method}-${prefix ? 'v1' : 'no'}-${origin ? 'o' : 'n'}`;
          const routedId = fastId.replace('fast', 'rout');
          const headers = { 'x-request-id': fastId, ...(origin ? { origin } : {}) };
          // a query string is not the plain form: the router answers that one
          const fast = await rawRequest(`${service.url}${prefix}/tx/${id}/status`, method, headers);
          const routed = await rawRequest(`${service.url}${prefix}/tx/${id}/status?via=router`, method, { ...headers, 'x-request-id': routedId });
          expect(fast.status).to.equal(200);
          expect(withoutDate(fast)).to.deep.equal({
            ...withoutDate(routed),
            headers: withoutDate(routed).headers.map(([name, value]) => [name, name === 'x-request-id' ? fastId : value]),
          });
          if (method === 'GET') expect(JSON.parse(fast.body)).to.include({ status: 'CONFIRMED', info: 'new' });
          else expect(fast.body).to.equal('');
          const [fastLine, routedLine] = await Promise.all([requestLine(fastId), requestLine(routedId)]);
          const comparable = ({ time: _t, durationMs: _d, requestId: _r, ...rest }: Record<string, unknown>) => rest;
          expect(comparable(fastLine)).to.deep.equal(comparable(routedLine));
          expect(fastLine).to.include({ route: `${prefix}/tx/:id/status`, dataItemId: id, status: 200, bytesIn: 0 });
        });
      }
    }
  }

  it("leaves an unknown id to the router: 404 TX doesn't exist", async () => {
    const answer = await rawRequest(`${service.url}/tx/${'Q'.repeat(43)}/status`, 'GET', {});
    expect(answer).to.include({ status: 404, body: "TX doesn't exist" });
  });
});

describe('which status requests are served ahead of the router', () => {
  const doc = {
    status: 'CONFIRMED',
    info: 'new',
    winc: '0',
    rawContentLength: 1,
    payloadContentType: 'text/plain',
    payloadDataStart: 0,
    payloadContentLength: 1,
  } as unknown as TxStatusDocument;
  const id = 'A'.repeat(43);

  /** the requests that reached the app behind, and the ids the status query was asked for */
  async function route(method: string, url: string, headers: Record<string, string> = {}, found = true) {
    const reachedApp: string[] = [];
    const asked: string[] = [];
    const listener = withFastStatus(
      (req, res) => {
        reachedApp.push(req.url!);
        res.end();
      },
      { txStatus: async (asks) => (asked.push(asks), found ? doc : undefined) },
    );
    const { createServer } = await import('node:http');
    const server = createServer(listener).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    try {
      const answer = await rawRequest(`http://127.0.0.1:${port}${url}`, method, headers);
      return { reachedApp, asked, status: answer.status };
    } finally {
      server.close();
    }
  }

  it('serves GET and HEAD of /tx/<id>/status and /v1/tx/<id>/status itself', async () => {
    for (const [method, url] of [
      ['GET', `/tx/${id}/status`],
      ['HEAD', `/v1/tx/${id}/status`],
    ] as const) {
      expect(await route(method, url)).to.deep.equal({ reachedApp: [], asked: [id], status: 200 });
    }
  });

  it('passes every other form to the app: another method, case, trailing slash, query, malformed id, a body', async () => {
    for (const [method, url] of [
      ['POST', `/tx/${id}/status`],
      ['GET', `/TX/${id}/status`],
      ['GET', `/tx/${id}/status/`],
      ['GET', `/tx/${id}/status?x=1`],
      ['GET', `/tx/${id.slice(1)}/status`],
      ['GET', `/v2/tx/${id}/status`],
    ] as const) {
      expect(await route(method, url), `${method} ${url}`).to.deep.equal({ reachedApp: [url], asked: [], status: 200 });
    }
    expect(await route('GET', `/tx/${id}/status`, { 'content-length': '0' })).to.deep.equal({ reachedApp: [`/tx/${id}/status`], asked: [], status: 200 });
  });

  it('passes an id the read model does not know to the app', async () => {
    expect(await route('GET', `/tx/${id}/status`, {}, false)).to.deep.equal({ reachedApp: [`/tx/${id}/status`], asked: [id], status: 200 });
  });
});
