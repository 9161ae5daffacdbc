import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { httpErrorOf } from '../../src/contract/errorMessages.js';
import { joinPath } from '../../src/http/openapi/catalog.js';
import type { RouteDoc } from '../../src/http/openapi/route.js';
import {
  approvalsRoute,
  balanceRoute,
  priceRoute,
  serviceInfoRoute,
  txStatusRoute,
  uploadCostRoute,
  uploadRoute,
  uploadWithTokenRoute,
  txOffsetsRoute,
  txReceiptRoute,
} from '../../src/http/openapi/routes/public.js';
import { txEventsRoute } from '../../src/http/openapi/routes/liveStatus.js';
import { eventually } from '../support/eventually.js';
import { rootDataRoute, txDataRoute, txHeaderRoute } from '../../src/http/openapi/routes/public.js';
import {
  createUploadWithTokenRoute,
  finalizeUploadRoute,
  uploadChunkRoute,
  uploadStatusRoute,
  viewUploadRoute,
} from '../../src/http/openapi/routes/multipart.js';
import { accountHistoryRoute, creditRoute, requeueRoute } from '../../src/http/openapi/routes/admin.js';
import { toNewEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { healthRoute, readyRoute } from '../../src/http/openapi/routes/ops.js';
import { countriesRoute, currenciesRoute, fiatRateRoute, freeStatusRoute, ratesRoute, tokenPriceRoute } from '../../src/http/openapi/routes/payment.js';
import { resolvePointer, validate, type Schema } from './jsonSchema.js';

const ADMIN_TOKEN = 'test-only-admin-token-0123456789';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
type Media = Record<string, { schema?: Schema }>;

describe('real answers match the OpenAPI document', function () {
  this.timeout(60_000);
  let service: TestService;
  let doc: Doc;
  before(async () => {
    service = await startTestService({ ADMIN_TOKEN });
    doc = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as Doc;
  });
  after(() => service.close());

  /**
   * Checks an answer against the document (status documented for the operation, media type, body
   * valid against the JSON Schema) and against the route's zod schema or its contract errors; returns the body.
   */
  async function documented(res: Response, route: RouteDoc, prefix = '/v1'): Promise<unknown> {
    const path = joinPath(prefix, route.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = doc.paths[path]?.[route.method];
    expect(operation, `${route.method} ${path} documented`).to.not.equal(undefined);
    const declared = operation!.responses[String(res.status)] as { $ref?: string; content?: Media } | undefined;
    expect(declared, `${res.status} documented for ${path}`).to.not.equal(undefined);
    const response = (declared!.$ref ? resolvePointer(doc, declared!.$ref) : declared) as { content?: Media };
    const text = await res.text();
    if (!response.content) {
      expect(text, `${path} ${res.status} body`).to.equal('');
      return undefined;
    }
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const key = Object.keys(response.content).find((k) => k.split(';')[0]!.trim() === mediaType);
    expect(key, `${path} ${res.status} as ${mediaType}`).to.not.equal(undefined);
    const body: unknown = mediaType === 'application/json' ? JSON.parse(text) : text;
    const schema = response.content[key!]!.schema;
    if (schema !== undefined) expect(validate(body, schema, doc), `${path} ${res.status}`).to.deep.equal([]);
    const zodSchema = route.responses[res.status]?.content?.schema;
    if (zodSchema) expect(zodSchema.safeParse(body).success, `${path} ${res.status} parses with the route's schema`).to.equal(true);
    else {
      const messages = (route.errors ?? [])
        .map(httpErrorOf)
        .filter(([status]) => status === res.status)
        .map(([, m]) => m);
      expect(messages, `${path} ${res.status}`).to.include(body);
      expect(res.statusText).to.equal(body);
    }
    return body;
  }

  it('service information', async () => {
    const body = (await documented(await fetch(`${service.url}/v1/info`), serviceInfoRoute)) as Record<string, unknown>;
    expect(body.freeUploadLimitBytes).to.equal(517120);
    expect(body.gateway).to.equal(service.gatewayUrl);
  });

  it('single upload 200, the same item again 202, its status 200, its offsets 404, an unknown id 404', async () => {
    const item = await signedItem(signers.arweave(), 'documented', [{ name: 'Content-Type', value: 'text/plain' }]);
    const receipt = (await documented(await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(item.getRaw()) }), uploadRoute)) as Record<
      string,
      unknown
    >;
    expect(receipt.id).to.equal(item.id);
    expect(receipt.winc).to.equal('0');
    const again = await fetch(`${service.url}/tx/arweave`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(again.status).to.equal(202);
    expect(await documented(again, uploadWithTokenRoute, '/')).to.deep.equal(receipt);

    const status = await documented(await fetch(`${service.url}/v1/tx/${item.id}/status`), txStatusRoute);
    const raw = item.getRaw().length;
    expect(status).to.deep.equal({
      status: 'CONFIRMED',
      info: 'new',
      winc: '0',
      rawContentLength: raw,
      payloadContentType: 'text/plain',
      payloadDataStart: raw - 'documented'.length,
      payloadContentLength: 'documented'.length,
    });
    expect(await documented(await fetch(`${service.url}/v1/tx/${item.id}/offsets`), txOffsetsRoute)).to.equal("TX doesn't exist");
    expect(await documented(await fetch(`${service.url}/v1/tx/${'x'.repeat(43)}/status`), txStatusRoute)).to.equal("TX doesn't exist");
    expect(await documented(await fetch(`${service.url}/v1/tx/not-an-id/status`), txStatusRoute)).to.equal("TX doesn't exist");
  });

  it('read-back: the header 200, the payload 304 and 416, an unknown id 404', async () => {
    const item = await signedItem(signers.arweave(), 'read me', [{ name: 'Content-Type', value: 'text/plain' }]);
    expect((await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    const header = (await documented(await fetch(`${service.url}/v1/tx/${item.id}`), txHeaderRoute)) as Record<string, unknown>;
    expect(header.payloadContentLength).to.equal('read me'.length);
    const notModified = await fetch(`${service.url}/v1/tx/${item.id}/data`, { headers: { 'if-none-match': `"${item.id}"` } });
    expect(notModified.status).to.equal(304);
    expect(await documented(notModified, txDataRoute)).to.equal(undefined);
    const unsatisfiable = await fetch(`${service.url}/${item.id}`, { headers: { range: 'bytes=7-' } });
    expect(unsatisfiable.status).to.equal(416);
    expect(await documented(unsatisfiable, rootDataRoute, '/')).to.equal(undefined);
    for (const [path, route] of [
      [`/tx/${'x'.repeat(43)}`, txHeaderRoute],
      [`/tx/${'x'.repeat(43)}/data`, txDataRoute],
      [`/${'x'.repeat(43)}`, rootDataRoute],
    ] as const) {
      expect(await documented(await fetch(`${service.url}/v1${path}`), route)).to.equal("TX doesn't exist");
    }
  });

  it("the receipt 200 and 404; a final state's stream 200 as text/event-stream, an unknown id's 404", async () => {
    const item = await signedItem(signers.arweave(), 'streamed');
    const accepted = await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(accepted.status).to.equal(200);
    expect(await documented(await fetch(`${service.url}/v1/tx/${item.id}/receipt`), txReceiptRoute)).to.deep.equal(await accepted.json());
    const unknown = 'x'.repeat(43);
    expect(await documented(await fetch(`${service.url}/v1/tx/${unknown}/receipt`), txReceiptRoute)).to.equal("TX doesn't exist");
    const failed = { type: 'DataItemFailed' as const, data: { id: item.id, attempts: 10, reason: '10 bundles dropped', timestamp: Date.now() } };
    await service.eventStore.append(dataItemStream(item.id as DataItemId), [toNewEvent(failed, newEventId(), { correlationId: 'spec' })], 0n);
    const stream = await eventually(
      async () => (await fetch(`${service.url}/v1/tx/${item.id}/status`)).json(),
      (s: { status: string }) => s.status === 'FAILED',
      'the item FAILED',
    ).then(() => fetch(`${service.url}/v1/tx/${item.id}/events`));
    expect(await documented(stream, txEventsRoute)).to.match(/^id: \d+\nevent: failed\ndata: \{.*\}\n\n$/);
    expect(await documented(await fetch(`${service.url}/v1/tx/${unknown}/events`), txEventsRoute)).to.equal("TX doesn't exist");
  });

  it('upload errors: Invalid token, Invalid Content Type, Invalid Data Item', async () => {
    const item = await signedItem(signers.arweave());
    const post = (path: string, body: Uint8Array, headers: Record<string, string> = {}) =>
      fetch(`${service.url}${path}`, { method: 'POST', body: asBody(body), headers });
    expect(await documented(await post('/v1/tx/Not_A_Token', item.getRaw()), uploadWithTokenRoute)).to.equal('Invalid token');
    expect(await documented(await post('/v1/tx', item.getRaw(), { 'content-type': 'text/plain' }), uploadRoute)).to.equal('Invalid Content Type');
    expect(await documented(await post('/v1/tx', new Uint8Array(100)), uploadRoute)).to.equal('Invalid Data Item');
  });

  it('balance 200 and 400 Invalid address', async () => {
    const address = 'documented'.padEnd(43, 'A');
    expect(await documented(await fetch(`${service.url}/v1/account/balance/${address}`), balanceRoute)).to.deep.equal({
      address,
      winc: '0',
      creditedWinc: '0',
      spentWinc: '0',
      reservedWinc: '0',
      givenApprovals: [],
    });
    expect(await documented(await fetch(`${service.url}/v1/account/balance/nope`), balanceRoute)).to.equal('Invalid address');
  });

  it('balance by token 200, prices 200 (plain text and turbo-sdk JSON), 400 Invalid request and Invalid token', async () => {
    const address = 'documented'.padEnd(43, 'A');
    expect(await documented(await fetch(`${service.url}/v1/account/balance/arweave?address=${address}`), balanceRoute)).to.deep.equal({
      balance: '0',
      winc: '0',
      controlledWinc: '0',
      effectiveBalance: '0',
      givenApprovals: [],
      receivedApprovals: [],
    });
    expect(await documented(await fetch(`${service.url}/v1/account/approvals/get?userAddress=${address}`), approvalsRoute)).to.deep.equal({
      givenApprovals: [],
      receivedApprovals: [],
    });
    expect(await documented(await fetch(`${service.url}/v1/account/approvals/get`), approvalsRoute)).to.equal('Invalid address');
    expect(await documented(await fetch(`${service.url}/price/arweave/10`), priceRoute, '/')).to.equal('0');
    expect(await documented(await fetch(`${service.url}/price/arweave/x`), priceRoute, '/')).to.equal('Invalid request');
    expect(await documented(await fetch(`${service.url}/price/A/10`), priceRoute, '/')).to.equal('Invalid token');
    expect(await documented(await fetch(`${service.url}/v1/price/arweave/1000000000000`), tokenPriceRoute)).to.deep.equal({
      winc: '1000000000000',
      fees: [],
      actualPaymentAmount: '1000000000000',
    });
    expect(await documented(await fetch(`${service.url}/v1/price/usd/1000`), tokenPriceRoute)).to.equal('Fiat payments not supported');
    expect(await documented(await fetch(`${service.url}/v1/price/solana/1000`), tokenPriceRoute)).to.equal('Invalid token');
    expect(await documented(await fetch(`${service.url}/v1/price/arweave/1.5`), tokenPriceRoute)).to.equal('Invalid request');
    expect(await documented(await fetch(`${service.url}/v1/account/free?address=${address}`), freeStatusRoute)).to.deep.equal({ bytesRemaining: 517120 });
    expect(await documented(await fetch(`${service.url}/v1/account/free?address=x`), freeStatusRoute)).to.equal('Invalid address');
    expect(await documented(await fetch(`${service.url}/v1/currencies`), currenciesRoute)).to.deep.equal({ supportedCurrencies: [], limits: {} });
    expect(await documented(await fetch(`${service.url}/v1/countries`), countriesRoute)).to.deep.equal([]);
    expect(await documented(await fetch(`${service.url}/v1/rates/usd`), fiatRateRoute)).to.equal('Fiat payments not supported');
    const gib = (await (await fetch(`${service.url}/v1/price/bytes/${2 ** 30}`)).json()) as { winc: string };
    expect(await documented(await fetch(`${service.url}/v1/rates`), ratesRoute)).to.deep.equal({ winc: gib.winc, adjustments: [], fees: [], fiat: {} });
    expect(await documented(await fetch(`${service.url}/v1/price/bytes/10`), uploadCostRoute)).to.deep.equal({ winc: '0', adjustments: [], fees: [] });
    expect(await documented(await fetch(`${service.url}/v1/price/bytes/-1`), uploadCostRoute)).to.equal('Invalid request');
  });

  it('multi-part: create, chunk, view, finalize, status', async () => {
    const created = (await documented(await fetch(`${service.url}/v1/chunks/arweave/-1/-1?chunkSize=2500`), createUploadWithTokenRoute)) as {
      id: string;
    };
    expect(created).to.deep.equal({ id: created.id, min: 2500, max: 500000000, chunkSize: 2500 });
    const item = await signedItem(signers.ethereum(), new Uint8Array(3000).fill(7));
    const raw = item.getRaw();
    for (const offset of [2500, 0]) {
      const res = await fetch(`${service.url}/v1/chunks/arweave/${created.id}/${offset}`, {
        method: 'POST',
        body: asBody(raw.subarray(offset, offset + 2500)),
      });
      expect(res.status).to.equal(200);
      expect(await documented(res, uploadChunkRoute)).to.equal(undefined);
    }
    const view = await documented(await fetch(`${service.url}/v1/chunks/arweave/${created.id}/-1`), viewUploadRoute);
    expect(view).to.deep.equal({
      id: created.id,
      min: 2500,
      max: 500000000,
      size: 2500,
      chunks: [
        [0, 2500],
        [2500, raw.length - 2500],
      ],
    });
    const assembling = await documented(await fetch(`${service.url}/v1/chunks/arweave/${created.id}/status`), uploadStatusRoute);
    expect(assembling).to.have.property('status', 'ASSEMBLING');

    const finalized = (await documented(await fetch(`${service.url}/v1/chunks/arweave/${created.id}/-1`, { method: 'POST' }), finalizeUploadRoute)) as {
      id: string;
      data: { id: string };
    };
    expect(finalized.id).to.equal(item.id);
    expect(finalized.data.id).to.equal(item.id);
    const status = (await documented(await fetch(`${service.url}/v1/chunks/arweave/${created.id}/status`), uploadStatusRoute)) as Record<string, unknown>;
    expect(status.status).to.equal('FINALIZED');
    expect(status.receipt).to.deep.equal(finalized.data);
    expect(await documented(await fetch(`${service.url}/v1/chunks/arweave/-1/-1?chunkSize=1`), createUploadWithTokenRoute)).to.equal('Invalid chunk size');
    expect(await documented(await fetch(`${service.url}/v1/chunks/arweave/${'u'.repeat(24)}/status`), uploadStatusRoute)).to.equal(
      'Multi-part upload not found',
    );
    expect(await documented(await fetch(`${service.url}/v1/chunks/arweave/${created.id}/x1`, { method: 'POST', body: 'abc' }), uploadChunkRoute)).to.equal(
      'Invalid chunk',
    );
  });

  it('admin credit and history, and 401 without the token', async () => {
    const address = 'credited'.padEnd(43, 'C');
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const credit = await fetch(`${service.url}/v1/admin/accounts/${address}/credit`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ winc: '1000', creditId: 'invoice-1' }),
    });
    expect(await documented(credit, creditRoute, '/v1/admin')).to.deep.include({ address, winc: '1000', creditedWinc: '1000', creditId: 'invoice-1' });
    const history = (await documented(await fetch(`${service.url}/admin/accounts/${address}/history`, { headers }), accountHistoryRoute, '/admin')) as {
      events: { type: string }[];
    };
    expect(history.events.map((e) => e.type)).to.deep.equal(['AccountCredited']);
    expect(await documented(await fetch(`${service.url}/v1/admin/accounts/${address}/history`), accountHistoryRoute, '/v1/admin')).to.equal('Unauthorized');
  });

  it('admin requeue: 200 for a FAILED item (then CONFIRMED/new), 200 again, 409 for an item not failed, 404 for an unknown one', async () => {
    const [failing, waiting] = [await signedItem(signers.arweave(), 'will fail'), await signedItem(signers.arweave(), 'waits')];
    for (const item of [failing, waiting]) expect((await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    // what the bundler records when the item's bundles were dropped MAX_BUNDLE_ATTEMPTS times
    const failed = { type: 'DataItemFailed' as const, data: { id: failing.id, attempts: 10, reason: '10 bundles dropped', timestamp: Date.now() } };
    await service.eventStore.append(dataItemStream(failing.id as DataItemId), [toNewEvent(failed, newEventId(), { correlationId: 'spec' })], 0n);
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const requeue = (id: string, prefix = '/v1/admin') =>
      fetch(`${service.url}${prefix}/items/${id}/requeue`, { method: 'POST', headers, body: JSON.stringify({ by: 'ops', reason: 'gateway healed' }) });
    expect(await documented(await requeue(failing.id), requeueRoute, '/v1/admin')).to.deep.equal({
      id: failing.id,
      requeued: true,
      previousFailure: '10 bundles dropped',
    });
    expect(await documented(await fetch(`${service.url}/v1/tx/${failing.id}/status`), txStatusRoute)).to.deep.include({ status: 'CONFIRMED', info: 'new' });
    expect(await documented(await requeue(failing.id, '/admin'), requeueRoute, '/admin')).to.deep.include({ id: failing.id, requeued: false });
    expect(await documented(await requeue(waiting.id), requeueRoute, '/v1/admin')).to.equal('Data item not failed');
    expect(await documented(await requeue('u'.repeat(43)), requeueRoute, '/v1/admin')).to.equal("TX doesn't exist");
  });

  it('health and readiness', async () => {
    expect(await documented(await fetch(`${service.url}/health`), healthRoute, '/')).to.deep.equal({ status: 'ok' });
    expect(await documented(await fetch(`${service.url}/ready`), readyRoute, '/')).to.have.property('status', 'ready');
  });

  it('an answer with a field the document does not name, or without a required one, does not validate', async () => {
    const item = await signedItem(signers.arweave());
    await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    const body = (await (await fetch(`${service.url}/v1/tx/${item.id}/status`)).json()) as Record<string, unknown>;
    const schema = (doc.paths['/v1/tx/{id}/status']!.get!.responses['200'] as { content: Media }).content['application/json']!.schema!;
    expect(validate(body, schema, doc)).to.deep.equal([]);
    expect(validate({ ...body, extra: 1 }, schema, doc)).to.deep.equal(['$.extra: no value allowed']);
    const { winc: _winc, ...withoutWinc } = body;
    expect(validate(withoutWinc, schema, doc)).to.deep.equal(['$: missing winc']);
    expect(validate({ ...body, status: 'DONE' }, schema, doc)).to.deep.equal(['$.status: "DONE" not in enum']);
  });
});
