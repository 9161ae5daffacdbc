import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { resolvePointer } from './jsonSchema.js';

const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Layer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

const joinPath = (prefix: string, path: string) => {
  const base = prefix.replace(/\/+$/, '');
  return path === '/' ? base || '/' : base + path;
};

/** `GET /v1/tx/:id/status` for every route in Express's router stack, mounted routers included */
function servedRoutes(stack: Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      const methods = Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m]);
      return paths.flatMap((p) => methods.map((m) => `${m.toUpperCase()} ${joinPath(prefix, p)}`));
    }
    if (layer.handle.stack) {
      const mounts = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath ?? '/'];
      return mounts.flatMap((mount) => servedRoutes(layer.handle.stack!, joinPath(prefix, mount)));
    }
    return [];
  });
}

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: Record<string, Record<string, unknown>>;
  tags: { name: string }[];
};

const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op: op as Record<string, unknown> & { parameters: Record<string, unknown>[] } })),
  );

/** `METHOD path` of every route the running service's Express app has, and of every documented operation */
async function servedAndDocumented(service: TestService) {
  const app = service.app as unknown as { router: { stack: Layer[] } };
  const served = [...new Set(servedRoutes(app.router.stack))].sort();
  const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Doc;
  const documented = operationsOf(doc)
    .map(({ path, method }) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`)
    .sort();
  return { served, documented };
}

/** every `$ref` string anywhere in the document */
const refsIn = (node: unknown): string[] =>
  Array.isArray(node)
    ? node.flatMap(refsIn)
    : node !== null && typeof node === 'object'
      ? Object.entries(node).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refsIn(v)))
      : [];

/** the routes of CONTRACT.md, each under /v1 and at the root, and the admin API */
const CONTRACT_ROUTES = [
  'GET /',
  'GET /info',
  'POST /tx',
  'POST /tx/:token',
  'GET /tx/:id/status',
  'GET /tx/:id/offsets',
  'GET /account/balance/:address',
  'GET /chunks/-1/-1',
  'GET /chunks/:token/-1/-1',
  'POST /chunks/:token/:uploadId/:offset',
  'GET /chunks/:token/:uploadId/-1',
  'POST /chunks/:token/:uploadId/-1',
  'POST /chunks/:token/:uploadId/finalize',
  'GET /chunks/:token/:uploadId/status',
  'GET /openapi.json',
  'GET /api-docs',
].flatMap((route) => {
  const [method, path] = route.split(' ') as [string, string];
  return [`${method} ${joinPath('/v1', path)}`, route];
});
const ADMIN_ROUTES = [
  'POST /accounts/:address/credit',
  'POST /accounts/:payer/approvals',
  'DELETE /accounts/:payer/approvals/:approvedAddress',
  'GET /accounts/:address',
  'GET /accounts/:address/history',
  'POST /items/:id/requeue',
].flatMap((route) => {
  const [method, path] = route.split(' ') as [string, string];
  return [`${method} /v1/admin${path}`, `${method} /admin${path}`];
});

describe('OpenAPI document (GET /openapi.json)', function () {
  this.timeout(60_000);
  let service: TestService;
  let doc: Doc;
  before(async () => {
    service = await startTestService({ ADMIN_TOKEN });
    doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Doc;
  });
  after(() => service.close());

  it('answers the same document as JSON at /openapi.json and /v1/openapi.json', async () => {
    const res = await fetch(`${service.url}/v1/openapi.json`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await res.json()).to.deep.equal(doc);
  });

  it('is OpenAPI 3.1.0 with the service version', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.title).to.equal('Permaweb upload service');
    expect(doc.info.version).to.equal(version);
  });

  it('documents every route the app serves, and serves every route it documents', async () => {
    const { served, documented } = await servedAndDocumented(service);
    expect(documented).to.deep.equal(served);
    expect(documented).to.include.members([...CONTRACT_ROUTES, ...ADMIN_ROUTES]);
  });

  it('documents the routes of the contract with their exact plain-text errors', () => {
    const errorsOf = (path: string, method: string, status: string) => {
      const content = (doc.paths[path]![method]!.responses as Record<string, { content: Record<string, { schema: unknown }> }>)[status]!.content;
      return content['text/plain']!.schema;
    };
    expect(errorsOf('/v1/tx/{token}', 'post', '400')).to.deep.equal({
      type: 'string',
      enum: ['Invalid token', 'Invalid Content Type', 'Invalid Data Item', 'Invalid request', 'Invalid address'],
    });
    expect(errorsOf('/tx/{token}', 'post', '413')).to.deep.equal({ type: 'string', enum: ['Data item too large'] });
    expect(errorsOf('/v1/tx/{id}/status', 'get', '404')).to.deep.equal({ type: 'string', enum: ["TX doesn't exist"] });
    expect(errorsOf('/v1/chunks/{token}/{uploadId}/{offset}', 'post', '409')).to.deep.equal({ type: 'string', enum: ['Upload already finalized'] });
    expect(errorsOf('/admin/accounts/{address}/credit', 'post', '401')).to.deep.equal({ type: 'string', enum: ['Unauthorized'] });
    expect(resolvePointer(doc, '#/components/responses/ServiceUnavailable')).to.deep.include({
      content: { 'text/plain': { schema: { type: 'string', enum: ['Service unavailable'] } } },
    });
    const status = doc.paths['/v1/tx/{id}/status']!.get!;
    expect(Object.keys(status.responses as object)).to.deep.equal(['200', '404', '500', '503']);
    expect((status.responses as Record<string, unknown>)['500']).to.deep.equal({ $ref: '#/components/responses/InternalServerError' });
  });

  it("gives the status route its parameter, answer and header schemas from the routes' zod schemas", () => {
    const status = doc.paths['/v1/tx/{id}/status']!.get!;
    expect(status.operationId).to.equal('getTxStatus');
    expect(doc.paths['/tx/{id}/status']!.get!.operationId).to.equal('getTxStatusUnversioned');
    expect(status.parameters).to.deep.equal([
      {
        name: 'id',
        in: 'path',
        required: true,
        description: "the data item id; another shape is `TX doesn't exist`",
        schema: { $ref: '#/components/schemas/DataItemId' },
      },
    ]);
    expect(doc.components.schemas!.DataItemId).to.deep.equal({
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{43}$',
      description: 'base64url(sha256(signature)) of a data item: 43 characters',
    });
    expect(resolvePointer(doc, '#/components/schemas/TxStatus')).to.deep.include({
      type: 'object',
      required: ['status', 'info', 'winc', 'rawContentLength', 'payloadContentType', 'payloadDataStart', 'payloadContentLength'],
      additionalProperties: false,
    });
    expect(doc.components.schemas!.CreditRequest).to.deep.include({ required: ['winc'], additionalProperties: false });
  });

  it('is well formed: unique operation ids, declared tags, every $ref resolves, every path parameter declared', () => {
    const operations = operationsOf(doc);
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).to.equal(ids.length);
    const tags = new Set(doc.tags.map((t) => t.name));
    for (const { path, method, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(path, where).to.match(/^\//);
      expect(METHODS, where).to.include(method);
      expect(op.operationId, where).to.be.a('string').and.not.equal('');
      expect(op.summary, where).to.be.a('string').and.not.equal('');
      for (const tag of op.tags as string[]) expect(tags.has(tag), `${where} tag ${tag}`).to.equal(true);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = op.parameters.filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort(), where).to.deep.equal(templated);
      for (const p of declared) expect(p.required, `${where} ${String(p.name)}`).to.equal(true);
      const keys = op.parameters.map((p) => `${String(p.in)} ${String(p.name)}`);
      expect(new Set(keys).size, where).to.equal(keys.length);
      for (const p of op.parameters) expect(['path', 'query', 'header', 'cookie'], where).to.include(p.in);
      const responses = Object.entries(op.responses as Record<string, Record<string, unknown>>);
      expect(responses.length, where).to.be.greaterThan(0);
      for (const [status, response] of responses) {
        expect(status, where).to.match(/^[1-5]\d\d$/);
        const resolved = (response.$ref ? resolvePointer(doc, response.$ref as string) : response) as { description?: unknown };
        expect(resolved.description, `${where} ${status}`).to.be.a('string');
      }
      for (const requirement of (op.security ?? []) as Record<string, unknown>[]) {
        for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes, where).to.have.property(scheme);
      }
    }
    const refs = refsIn(doc);
    expect(refs.length).to.be.greaterThan(100);
    for (const ref of refs) expect(() => resolvePointer(doc, ref), ref).not.to.throw();
    // no JSON Schema dialect markers or local $defs left: every named schema is a component
    expect(JSON.stringify(doc)).not.to.match(/"\$schema"|"\$defs"|#\/\$defs/);
  });
});

describe('OpenAPI document of a split deployment', function () {
  this.timeout(60_000);
  for (const role of ['commands', 'queries']) {
    it(`lists what a ${role} process serves and nothing else`, async () => {
      const service = await startTestService({ ROLE: role });
      try {
        const { served, documented } = await servedAndDocumented(service);
        expect(documented).to.deep.equal(served);
        const contract = role === 'commands' ? 'POST /v1/tx/:token' : 'GET /v1/tx/:id/status';
        const other = role === 'commands' ? 'GET /v1/tx/:id/status' : 'POST /v1/tx/:token';
        expect(documented).to.include(contract);
        expect(documented).not.to.include(other);
      } finally {
        await service.close();
      }
    });
  }
});

describe('API docs page (GET /api-docs)', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ ADMIN_TOKEN });
  });
  after(() => service.close());

  it('is HTML naming every operation with its method, path, parameters and responses, with nothing from elsewhere', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Doc;
    for (const path of ['/api-docs', '/v1/api-docs']) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      const page = await res.text();
      expect(page).to.match(/^<!doctype html>/);
      const operations = operationsOf(doc);
      expect(page.match(/<section class="operation"/g)?.length).to.equal(operations.length);
      for (const { path: p, method, op } of operations) {
        const start = page.indexOf(`<section class="operation" id="op-${String(op.operationId)}">`);
        expect(start, String(op.operationId)).to.be.greaterThan(-1);
        const section = page.slice(start, page.indexOf('</section>', start));
        expect(section).to.include(`<span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${p}</code>`);
        for (const param of op.parameters) expect(section, `${String(op.operationId)} ${String(param.name)}`).to.include(`<code>${String(param.name)}</code>`);
        for (const status of Object.keys(op.responses as object)) expect(section).to.include(`<td class="status">${status}</td>`);
      }
      const upload = page.slice(page.indexOf('id="op-uploadDataItemWithToken"'));
      expect(upload).to.include('<h4>Request body</h4>');
      expect(upload).to.include('<code>Invalid token</code> or <code>Invalid Content Type</code> or <code>Invalid Data Item</code>');
      expect(page).to.include('<section id="schema-Receipt">');
      expect(page).not.to.match(/<script|<link|src=|https?:\/\/(?!json-schema)/);
    }
  });
});
