import { createHash, randomBytes } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startTestService, testServiceConfig, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { bundleBytes, bundleItem } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { TxHeaderBody } from '../../src/http/openapi/bodies.js';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { eventually } from '../support/eventually.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

async function upload(service: TestService, item: DataItem): Promise<void> {
  const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
  expect(res.status).to.equal(200);
}

const payloadOf = (item: DataItem) => Buffer.from(item.rawData);

async function expectNotFound(res: Response) {
  expect(res.status).to.equal(404);
  expect(res.statusText).to.equal("TX doesn't exist");
}

describe('reading an item back (GET /:id, GET /tx/:id/data, GET /tx/:id)', function () {
  let service: TestService;
  before(async () => {
    service = await startTestService({ MAX_DATA_ITEM_SIZE: '10000000' });
  });
  after(() => service.close());

  it('serves the exact payload of a single upload right after its receipt, at every path, with its headers', async () => {
    const payload = randomBytes(70_001);
    const item = await signedItem(signers.ethereum(), payload, [{ name: 'Content-Type', value: 'application/x-test' }]);
    await upload(service, item);
    for (const path of [`/${item.id}`, `/v1/${item.id}`, `/tx/${item.id}/data`, `/v1/tx/${item.id}/data`]) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/x-test');
      expect(res.headers.get('content-length')).to.equal('70001');
      expect(res.headers.get('etag')).to.equal(`"${item.id}"`);
      expect(res.headers.get('cache-control')).to.equal(IMMUTABLE);
      expect(res.headers.get('accept-ranges')).to.equal('bytes');
      expect(Buffer.from(await res.arrayBuffer()).equals(payload), path).to.equal(true);
    }
  });

  it('serves the exact payload of a multi-part upload right after its receipt', async () => {
    const payload = randomBytes(25_000);
    const item = await signedItem(signers.arweave(), payload);
    const base = service.url;
    const id = await createUpload(base, '?chunkSize=10000');
    await postChunks(base, id, item.getRaw(), 10_000, [2, 0, 1]);
    expect((await fetch(`${base}/chunks/arweave/${id}/-1`, { method: 'POST' })).status).to.equal(200);
    const res = await fetch(`${base}/${item.id}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/octet-stream');
    expect(Buffer.from(await res.arrayBuffer()).equals(payload)).to.equal(true);
  });

  it('answers single ranges with 206 and Content-Range, and ranges past the payload with 416', async () => {
    const payload = randomBytes(1000);
    const item = await signedItem(signers.solana(), payload);
    await upload(service, item);
    const cases: [string, number, number][] = [
      ['bytes=0-0', 0, 0],
      ['bytes=999-999', 999, 999],
      ['bytes=100-299', 100, 299],
      ['bytes=-10', 990, 999],
      ['bytes=-5000', 0, 999],
      ['bytes=900-', 900, 999],
      ['bytes=950-5000', 950, 999],
    ];
    for (const [range, start, end] of cases) {
      const res = await fetch(`${service.url}/${item.id}`, { headers: { range } });
      expect(res.status, range).to.equal(206);
      expect(res.headers.get('content-range'), range).to.equal(`bytes ${start}-${end}/1000`);
      expect(res.headers.get('content-length'), range).to.equal(String(end - start + 1));
      expect(Buffer.from(await res.arrayBuffer()).equals(payload.subarray(start, end + 1)), range).to.equal(true);
    }
    for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
      const res = await fetch(`${service.url}/tx/${item.id}/data`, { headers: { range } });
      expect(res.status, range).to.equal(416);
      expect(res.headers.get('content-range'), range).to.equal('bytes */1000');
      expect(await res.text()).to.equal('');
    }
    // several ranges: the whole payload (documented in CONTRACT.md section 7)
    const multi = await fetch(`${service.url}/${item.id}`, { headers: { range: 'bytes=0-1,5-6' } });
    expect(multi.status).to.equal(200);
    expect(Buffer.from(await multi.arrayBuffer()).equals(payload)).to.equal(true);
  });

  it('serves an empty payload: 200 with no bytes, and 416 for any range', async () => {
    const item = await signedItem(signers.arweave(), new Uint8Array(0));
    await upload(service, item);
    const res = await fetch(`${service.url}/${item.id}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-length')).to.equal('0');
    expect(await res.text()).to.equal('');
    const ranged = await fetch(`${service.url}/${item.id}`, { headers: { range: 'bytes=0-' } });
    expect(ranged.status).to.equal(416);
    expect(ranged.headers.get('content-range')).to.equal('bytes */0');
  });

  it('answers HEAD with the headers only, and If-None-Match naming the ETag with 304', async () => {
    const item = await signedItem(signers.arweave(), randomBytes(500));
    await upload(service, item);
    const head = await fetch(`${service.url}/${item.id}`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal('500');
    expect(head.headers.get('etag')).to.equal(`"${item.id}"`);
    expect(await head.text()).to.equal('');
    for (const tag of [`"${item.id}"`, `W/"${item.id}"`, `"other", "${item.id}"`, '*']) {
      const res = await fetch(`${service.url}/tx/${item.id}/data`, { headers: { 'if-none-match': tag } });
      expect(res.status, tag).to.equal(304);
      expect(res.headers.get('etag')).to.equal(`"${item.id}"`);
      expect(res.headers.get('cache-control')).to.equal(IMMUTABLE);
    }
    const other = await fetch(`${service.url}/${item.id}`, { headers: { 'if-none-match': '"other"' } });
    expect(other.status).to.equal(200);
    await other.arrayBuffer();
  });

  it('answers the Content-Type tag as recorded, text types without an added charset', async () => {
    const item = await signedItem(signers.arweave(), '<h1>hi</h1>', [{ name: 'content-TYPE', value: 'text/html' }]);
    await upload(service, item);
    const res = await fetch(`${service.url}/${item.id}`);
    expect(res.headers.get('content-type')).to.equal('text/html');
    expect(await res.text()).to.equal('<h1>hi</h1>');
  });

  it('answers item data with `Content-Security-Policy: sandbox allow-scripts` (an opaque origin) and nosniff, /api-docs with a CSP of its own, every answer with nosniff', async () => {
    const item = await signedItem(signers.arweave(), '<script>document.title = document.cookie</script>', [{ name: 'Content-Type', value: 'text/html' }]);
    await upload(service, item);
    const reads: [string, RequestInit, number][] = [
      [`/${item.id}`, {}, 200],
      [`/v1/tx/${item.id}/data`, {}, 200],
      [`/${item.id}`, { method: 'HEAD' }, 200],
      [`/${item.id}`, { headers: { range: 'bytes=0-7' } }, 206],
      [`/${item.id}`, { headers: { range: 'bytes=5000-' } }, 416],
      [`/${item.id}`, { headers: { 'if-none-match': `"${item.id}"` } }, 304],
    ];
    for (const [path, init, status] of reads) {
      const res = await fetch(`${service.url}${path}`, init);
      expect(res.status, path).to.equal(status);
      expect(res.headers.get('content-security-policy'), `${path} ${status}`).to.equal('sandbox allow-scripts');
      expect(res.headers.get('x-content-type-options'), `${path} ${status}`).to.equal('nosniff');
      await res.arrayBuffer();
    }
    const docs = await fetch(`${service.url}/api-docs`);
    const page = await docs.text();
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    expect(docs.headers.get('content-security-policy')).to.equal(
      `default-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(docs.headers.get('x-content-type-options')).to.equal('nosniff');
    // the rest: JSON, errors, the status query served ahead of Express
    for (const [path, status] of [
      ['/info', 200],
      ['/openapi.json', 200],
      [`/tx/${item.id}/status`, 200],
      [`/tx/${'x'.repeat(43)}`, 404],
      ['/no-such-route/here', 404],
    ] as const) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).to.equal(status);
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      await res.arrayBuffer();
    }
  });

  it('answers application/octet-stream for a Content-Type tag no HTTP header can carry, and the bytes all the same', async () => {
    for (const value of ['text/html\r\nX-Injected: 1', 'text/plain; name="\u2603"']) {
      const item = await signedItem(signers.arweave(), `payload for ${value.length}`, [{ name: 'Content-Type', value }]);
      await upload(service, item);
      const res = await fetch(`${service.url}/${item.id}`);
      expect(res.status, value).to.equal(200);
      expect(res.headers.get('content-type'), value).to.equal('application/octet-stream');
      expect(res.headers.get('x-injected')).to.equal(null);
      expect(await res.text()).to.equal(`payload for ${value.length}`);
    }
  });

  it("serves an item nested in an uploaded bundle from its parent's bytes", async () => {
    const inner = await signedItem(signers.arweave(), 'nested payload', [{ name: 'Content-Type', value: 'text/plain' }]);
    const other = await signedItem(signers.ethereum(), randomBytes(300));
    const root = await bundleItem(signers.arweave(), await bundleBytes([other, inner]));
    await upload(service, root);
    await nestedIndexed(service, root.id);
    const res = await fetch(`${service.url}/${inner.id}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/plain');
    expect(await res.text()).to.equal('nested payload');
    const ranged = await fetch(`${service.url}/tx/${other.id}/data`, { headers: { range: 'bytes=-7' } });
    expect(ranged.status).to.equal(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(payloadOf(other).subarray(293))).to.equal(true);
    const header = TxHeaderBody.parse(await (await fetch(`${service.url}/tx/${inner.id}`)).json());
    expect(header.id).to.equal(inner.id);
    expect(header.tags).to.deep.equal([{ name: 'Content-Type', value: 'text/plain' }]);
  });

  it("answers an item's header fields at GET /tx/:id", async () => {
    const item = await signedItem(signers.arweave(), randomBytes(100), [
      { name: 'Content-Type', value: 'image/png' },
      { name: 'App', value: 'read-back' },
    ]);
    await upload(service, item);
    const res = await fetch(`${service.url}/v1/tx/${item.id}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal(IMMUTABLE);
    expect(TxHeaderBody.parse(await res.json())).to.deep.equal({
      id: item.id,
      signatureType: 1,
      signature: item.signature,
      owner: item.owner,
      // an arweave address: base64url(sha256(owner))
      ownerAddress: createHash('sha256').update(item.rawOwner).digest('base64url'),
      tags: [
        { name: 'Content-Type', value: 'image/png' },
        { name: 'App', value: 'read-back' },
      ],
      rawContentLength: item.getRaw().length,
      payloadContentType: 'image/png',
      payloadDataStart: item.getStartOfData(),
      payloadContentLength: 100,
    });
  });

  it("answers `TX doesn't exist` for an unknown id and an id of another shape", async () => {
    const unknown = 'x'.repeat(43);
    for (const path of [`/${unknown}`, `/tx/${unknown}/data`, `/tx/${unknown}`, '/tx/short/data', '/tx/short', `/v1/tx/${unknown}x/data`]) {
      await expectNotFound(await fetch(`${service.url}${path}`));
    }
    // a single segment of another shape is not this route: the service's usual Not Found
    const other = await fetch(`${service.url}/not-an-id`);
    expect(other.status).to.equal(404);
    expect(other.statusText).to.equal('Not Found');
  });

  it('leaves the literal root routes to their handlers', async () => {
    for (const [path, type] of [
      ['/info', 'application/json'],
      ['/v1/info', 'application/json'],
      ['/health', 'application/json'],
      ['/openapi.json', 'application/json'],
      ['/api-docs', 'text/html'],
      ['/dashboard', 'text/html'],
    ] as const) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type'), path).to.match(new RegExp(`^${type}`));
      await res.arrayBuffer();
    }
  });
});

describe("receipts' dataCaches: only hosts that hold the item from its receipt on", () => {
  const dataCachesOf = (env: Record<string, string>) => testServiceConfig('/tmp/unused', 'https://gateway.example', env).dataCaches;

  it("names this service's public host, then the configured caches, and never the gateway by default", () => {
    expect(dataCachesOf({})).to.deep.equal([]);
    expect(dataCachesOf({ PUBLIC_URL: 'https://upload.example.com' })).to.deep.equal(['upload.example.com']);
    expect(dataCachesOf({ DATA_CACHES: 'cache.example, other.example' })).to.deep.equal(['cache.example', 'other.example']);
    expect(dataCachesOf({ PUBLIC_URL: 'https://upload.example.com:8443/base', DATA_CACHES: 'cache.example,upload.example.com:8443' })).to.deep.equal([
      'upload.example.com:8443',
      'cache.example',
    ]);
  });

  it('signs receipts naming them', async () => {
    const service = await startTestService({ PUBLIC_URL: 'https://upload.example.com', DATA_CACHES: 'cache.example', FAST_FINALITY_INDEXES: 'index.example' });
    try {
      const item = await signedItem(signers.arweave(), 'where is it');
      const receipt = await (await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).json();
      expect(receipt.dataCaches).to.deep.equal(['upload.example.com', 'cache.example']);
      expect(receipt.fastFinalityIndexes).to.deep.equal(['index.example']);
    } finally {
      await service.close();
    }
  });
});

describe('reading a large item back', function () {
  this.timeout(120_000);
  const SIZE = 16 * 1024 * 1024;
  /** each blob the real store opened, with the bytes read from it and whether it was closed */
  const opened: { bytesRead: number; closed: boolean }[] = [];
  let service: TestService;
  before(async () => {
    service = await startTestService({ MAX_DATA_ITEM_SIZE: String(2 * SIZE), FREE_UPLOAD_LIMIT_BYTES: String(2 * SIZE) }, async (dataDir) => {
      const store = await openFsBlobStore({ root: join(dataDir, 'blobs') });
      const open = store.open!.bind(store);
      store.open = async (key) => {
        const blob = await open(key);
        const watched = { bytesRead: 0, closed: false };
        opened.push(watched);
        return {
          size: blob.size,
          read: async (into, position) => {
            const read = await blob.read(into, position);
            watched.bytesRead += read;
            return read;
          },
          close: async () => {
            watched.closed = true;
            await blob.close();
          },
        };
      };
      return { blobStore: store };
    });
  });
  after(() => service.close());

  it("serves a payload of many read buffers exactly, whole and in ranges across the buffers' edges", async () => {
    const MiB = 1024 * 1024;
    // not a whole number of the buffers the payload is read into (64 KiB growing to 1 MiB), nor of 64 KiB socket reads
    const payload = randomBytes(5 * MiB + 3);
    const item = await signedItem(signers.arweave(), payload);
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    opened.length = 0;
    const whole = await fetch(`${service.url}/${item.id}`);
    expect(whole.status).to.equal(200);
    expect(whole.headers.get('content-length')).to.equal(String(payload.length));
    expect(Buffer.from(await whole.arrayBuffer()).equals(payload)).to.equal(true);
    for (const [start, end] of [
      [MiB - 5, 3 * MiB + 7],
      [0, 2 * MiB - 1],
      [2 * MiB, 2 * MiB],
      [4 * MiB + 1, payload.length - 1],
    ] as const) {
      const res = await fetch(`${service.url}/tx/${item.id}/data`, { headers: { Range: `bytes=${start}-${end}` } });
      expect(res.status).to.equal(206);
      expect(res.headers.get('content-range')).to.equal(`bytes ${start}-${end}/${payload.length}`);
      expect(Buffer.from(await res.arrayBuffer()).equals(payload.subarray(start, end + 1))).to.equal(true);
    }
    // every read went through an open blob, and each was closed once its bytes were sent
    expect(opened).to.have.length(5);
    await eventually(
      () => opened.map((blob) => blob.closed),
      (closed) => closed.every(Boolean),
      'every blob closed',
    );
  });

  it('stops reading the blob when the client goes away', async () => {
    const item = await signedItem(signers.arweave(), randomBytes(SIZE));
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    opened.length = 0;
    const url = new URL(`${service.url}/${item.id}`);
    await new Promise<void>((resolve, reject) => {
      const req = httpGet(url, (res) => {
        expect(res.statusCode).to.equal(200);
        // the first bytes, then away, the rest unread
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    });
    expect(opened).to.have.length(1);
    const blob = opened[0]!;
    await eventually(() => blob.closed, Boolean, 'the blob closed');
    expect(blob.bytesRead).to.be.below(SIZE);
  });
});
