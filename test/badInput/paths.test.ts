import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { rawRequest } from '../support/hostileHttp.js';
import { answerOf, collect, expectContractError, expectOnlyAcceptedBlobs, mismatchOf, MiB, storedKeys } from '../support/hostileService.js';
import { createUpload, postChunk } from '../support/multipart.js';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem } from '../verify/support/items.js';
import { signers } from '../verify/support/signers.js';

/**
 * Hostile path parameters and chunk requests, sent byte for byte over a socket (fetch would
 * normalize `..` and `%2e%2e` away): malformed ids, tokens, offsets and addresses on every route
 * that takes one, path traversal in each of them, malformed chunk lengths, and chunk sets that do
 * not tile their item. Each answer must be the contract's exact error, and afterwards nothing of a
 * refused request is left in the blob store.
 */

const MAX_SIZE = MiB;
const ADMIN_TOKEN = 'bad-input-corpus-admin-token';
const ADDRESS = 'B'.repeat(43);

const NOT_FOUND: Expected = [404, 'Not Found'];
type Expected = [number, string];

/** Path segments that are not what the route asks for: each is sent exactly as written here. */
const MALFORMED = [
  // wrong lengths ('0' is neither base58 nor part of a 0x address, so no length makes an address of it)
  '0',
  '0'.repeat(42),
  '0'.repeat(44),
  '0'.repeat(65),
  '0'.repeat(300),
  // not base64url
  `${'0'.repeat(42)}+`,
  `${'0'.repeat(42)}=`,
  `${'0'.repeat(42)}.`,
  `${'0'.repeat(42)}~`,
  `${'0'.repeat(42)}%2B`,
  `${'0'.repeat(42)}%2F`,
  `${'0'.repeat(42)}%20`,
  `%20${'0'.repeat(42)}`,
  // percent-encoded unicode: é, fullwidth A, right-to-left override, an emoji, a lone surrogate's bytes
  '%C3%A9'.repeat(43),
  '%EF%BC%A1'.repeat(43),
  `%E2%80%AE${'0'.repeat(42)}`,
  `%F0%9F%98%80${'0'.repeat(41)}`,
  '%ED%A0%80',
  // path traversal, encoded every way
  '.',
  '..',
  '...',
  '..%2f..%2fetc%2fpasswd',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
  '%2e%2e%5c%2e%2e%5cwindows',
  '..%5c..%5cwindows',
  '..\\..\\windows',
  '\\',
  '%252e%252e%252f',
  '..%c0%af..%c0%afetc',
  // encoded NUL and control characters
  '%00',
  `${'0'.repeat(42)}%00`,
  `%00${'0'.repeat(42)}`,
  'a%0d%0aSet-Cookie:%20x',
  // percent-encoding that does not decode
  '%',
  '%ZZ',
  '%E0%A4%A',
  `${'0'.repeat(42)}%`,
];

/** Traversal with real slashes: the path has other segments, so no route with that parameter matches. */
const SLASHED = ['../../etc/passwd', '../../../../../../etc/passwd', '..//..//', 'a/b', '/'];

/** whether decodeURIComponent refuses the segment: the router cannot decode the parameter */
const undecodable = (segment: string) => {
  try {
    decodeURIComponent(segment);
    return false;
  } catch {
    return true;
  }
};

describe('bad input: hostile paths and chunk requests', function () {
  this.timeout(60_000);
  let service: TestService;
  let uploadId: string;
  const accepted = new Set<string>();
  const uploads: string[] = [];
  const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };

  const send = (method: string, target: string, headers: Record<string, string> = {}, body?: Uint8Array) =>
    rawRequest(service.url, { method, target, headers: { 'content-length': String(body?.length ?? 0), ...headers }, ...(body ? { body } : {}) });

  /** every route with a parameter, with that parameter's value replaced by `v`, and the answer a malformed one gets */
  const routes = (): { name: string; expected: Expected; request: (v: string) => [string, string, Record<string, string>, Uint8Array?] }[] => {
    const body = Buffer.from('abc');
    const tx: Expected = [404, "TX doesn't exist"];
    const upload: Expected = [404, 'Multi-part upload not found'];
    const token: Expected = [400, 'Invalid token'];
    const chunk: Expected = [400, 'Invalid chunk'];
    const address: Expected = [400, 'Invalid address'];
    return [
      { name: 'GET /tx/:id/status', expected: tx, request: (v) => ['GET', `/tx/${v}/status`, {}] },
      { name: 'GET /tx/:id/offsets', expected: tx, request: (v) => ['GET', `/tx/${v}/offsets`, {}] },
      { name: 'POST /tx/:token', expected: token, request: (v) => ['POST', `/tx/${v}`, {}, body] },
      { name: 'GET /chunks/:token/-1/-1', expected: token, request: (v) => ['GET', `/chunks/${v}/-1/-1`, {}] },
      { name: 'POST /chunks/:token/:uploadId/:offset (token)', expected: token, request: (v) => ['POST', `/chunks/${v}/${uploadId}/0`, {}, body] },
      { name: 'POST /chunks/:token/:uploadId/:offset (uploadId)', expected: upload, request: (v) => ['POST', `/chunks/arweave/${v}/0`, {}, body] },
      { name: 'POST /chunks/:token/:uploadId/:offset (offset)', expected: chunk, request: (v) => ['POST', `/chunks/arweave/${uploadId}/${v}`, {}, body] },
      { name: 'GET /chunks/:token/:uploadId/-1 (token)', expected: token, request: (v) => ['GET', `/chunks/${v}/${uploadId}/-1`, {}] },
      { name: 'GET /chunks/:token/:uploadId/-1 (uploadId)', expected: upload, request: (v) => ['GET', `/chunks/arweave/${v}/-1`, {}] },
      { name: 'GET /chunks/:token/:uploadId/status (token)', expected: token, request: (v) => ['GET', `/chunks/${v}/${uploadId}/status`, {}] },
      { name: 'GET /chunks/:token/:uploadId/status (uploadId)', expected: upload, request: (v) => ['GET', `/chunks/arweave/${v}/status`, {}] },
      { name: 'POST /chunks/:token/:uploadId/-1 (token)', expected: token, request: (v) => ['POST', `/chunks/${v}/${uploadId}/-1`, {}] },
      { name: 'POST /chunks/:token/:uploadId/-1 (uploadId)', expected: upload, request: (v) => ['POST', `/chunks/arweave/${v}/-1`, {}] },
      { name: 'POST /chunks/:token/:uploadId/finalize (token)', expected: token, request: (v) => ['POST', `/chunks/${v}/${uploadId}/finalize`, {}] },
      { name: 'POST /chunks/:token/:uploadId/finalize (uploadId)', expected: upload, request: (v) => ['POST', `/chunks/arweave/${v}/finalize`, {}] },
      { name: 'GET /account/balance/:address', expected: address, request: (v) => ['GET', `/account/balance/${v}`, {}] },
      { name: 'GET /admin/accounts/:address', expected: address, request: (v) => ['GET', `/admin/accounts/${v}`, bearer] },
      { name: 'GET /admin/accounts/:address/history', expected: address, request: (v) => ['GET', `/admin/accounts/${v}/history`, bearer] },
      {
        name: 'POST /admin/accounts/:address/credit',
        expected: address,
        request: (v) => ['POST', `/admin/accounts/${v}/credit`, { ...bearer, 'content-type': 'application/json' }, Buffer.from('{"winc":"1"}')],
      },
      {
        name: 'POST /admin/accounts/:payer/approvals',
        expected: address,
        request: (v) => [
          'POST',
          `/admin/accounts/${v}/approvals`,
          { ...bearer, 'content-type': 'application/json' },
          Buffer.from(JSON.stringify({ approvedAddress: ADDRESS, winc: '1' })),
        ],
      },
      {
        name: 'DELETE /admin/accounts/:payer/approvals/:approvedAddress (payer)',
        expected: address,
        request: (v) => ['DELETE', `/admin/accounts/${v}/approvals/${ADDRESS}`, bearer],
      },
      {
        name: 'DELETE /admin/accounts/:payer/approvals/:approvedAddress (approved)',
        expected: address,
        request: (v) => ['DELETE', `/admin/accounts/${ADDRESS}/approvals/${v}`, bearer],
      },
    ];
  };

  before(async () => {
    service = await startTestService({ MAX_DATA_ITEM_SIZE: String(MAX_SIZE), ADMIN_TOKEN });
    uploadId = await createUpload(service.url);
    uploads.push(uploadId);
  });

  after(async () => {
    await service?.close();
  });

  it('answers every route the contract error of a malformed parameter, under / and /v1, and Not Found to one it cannot decode', async () => {
    const tasks = routes().flatMap(({ name, expected, request }) =>
      MALFORMED.flatMap((value) =>
        ['', '/v1'].map((prefix) => async () => {
          const [method, path, headers, body] = request(value);
          const want = undecodable(value) ? NOT_FOUND : expected;
          // `0` is a well-formed token and offset: not part of this corpus there
          if (value === '0' && (expected[1] === 'Invalid token' || expected[1] === 'Invalid chunk')) return undefined;
          const miss = mismatchOf(await answerOf(await send(method, `${prefix}${path}`, headers, body)), ...want);
          return miss === undefined ? undefined : `${name} with ${JSON.stringify(value)} under "${prefix}": ${miss}`;
        }),
      ),
    );
    expect(tasks.length).to.equal(22 * MALFORMED.length * 2);
    expect(await collect(tasks)).to.deep.equal([]);
  });

  it('answers 404 Not Found to traversal with real slashes in any parameter', async () => {
    const tasks = routes().flatMap(({ name, request }) =>
      SLASHED.map((value) => async () => {
        const [method, path, headers, body] = request(value);
        const miss = mismatchOf(await answerOf(await send(method, path, headers, body)), ...NOT_FOUND);
        return miss === undefined ? undefined : `${name} with ${JSON.stringify(value)}: ${miss}`;
      }),
    );
    expect(await collect(tasks)).to.deep.equal([]);
  });

  it('answers 400 Bad Request to raw non-ASCII, space and control bytes in a path, before any route', async () => {
    const segments = ['é'.repeat(43), '日'.repeat(43), 'a b', 'a\tb', '\u0000', `${'0'.repeat(42)}\u007f`];
    const misses: string[] = [];
    for (const segment of segments) {
      for (const target of [`/tx/${segment}/status`, `/account/balance/${segment}`, `/chunks/arweave/${segment}/status`]) {
        const miss = mismatchOf(await answerOf(await send('GET', target)), 400, 'Bad Request');
        if (miss) misses.push(`${JSON.stringify(target)}: ${miss}`);
      }
    }
    expect(misses).to.deep.equal([]);
  });

  it('answers 400 Invalid chunk size to a chunk size that is not one integer within [2500, 500000000]', async () => {
    const misses: string[] = [];
    for (const query of [
      '0',
      '2499',
      '500000001',
      '-2500',
      '2500.5',
      '1e4',
      '0x9c4',
      '+2500',
      '%202500',
      '',
      '%ZZ',
      'abc',
      '25000&chunkSize=25000',
      '99999999999999999999',
    ]) {
      for (const target of [`/chunks/arweave/-1/-1?chunkSize=${query}`, `/chunks/-1/-1?chunkSize=${query}`]) {
        const miss = mismatchOf(await answerOf(await send('GET', target)), 400, 'Invalid chunk size');
        if (miss) misses.push(`${target}: ${miss}`);
      }
    }
    expect(misses).to.deep.equal([]);
    for (const size of [2500, 500_000_000]) {
      const res = await fetch(`${service.url}/chunks/arweave/-1/-1?chunkSize=${size}`);
      const body = await res.json();
      expect([res.status, body.chunkSize]).to.deep.equal([200, size]);
      uploads.push(body.id);
    }
  });

  it('answers 400 Invalid chunk to offsets that are not a non-negative integer within the maximum item size', async () => {
    const offsets = [
      '-2',
      '-0',
      '1.5',
      '1.',
      '.5',
      '0x10',
      '1e3',
      '+1',
      '%201',
      '1%20',
      '%2d1',
      '%66inalize',
      'Infinity',
      'NaN',
      '99999999999999999',
      '9007199254740993',
      String(MAX_SIZE - 2),
    ];
    const misses: string[] = [];
    for (const offset of offsets) {
      const miss = mismatchOf(await answerOf(await send('POST', `/chunks/arweave/${uploadId}/${offset}`, {}, Buffer.from('abc'))), 400, 'Invalid chunk');
      if (miss) misses.push(`offset ${offset}: ${miss}`);
    }
    expect(misses).to.deep.equal([]);
  });

  it('takes a chunk ending exactly at the maximum item size and refuses one ending a byte past it', async () => {
    const edge = await createUpload(service.url);
    uploads.push(edge);
    expect((await send('POST', `/chunks/arweave/${edge}/${MAX_SIZE - 3}`, {}, Buffer.from('abc'))).status).to.equal(200);
    await expectContractError(await send('POST', `/chunks/arweave/${edge}/${MAX_SIZE - 2}`, {}, Buffer.from('abc')), 400, 'Invalid chunk');
  });

  describe('chunk lengths', () => {
    const chunkWithLength = (length: string, body?: Uint8Array) =>
      rawRequest(service.url, { method: 'POST', target: `/chunks/arweave/${uploadId}/0`, headers: { 'content-length': length }, ...(body ? { body } : {}) });

    it('answers 400 Invalid chunk to a zero, missing, over-max or past-the-maximum-size content-length', async () => {
      await expectContractError(await chunkWithLength('0'), 400, 'Invalid chunk');
      await expectContractError(await chunkWithLength('500000001'), 400, 'Invalid chunk');
      await expectContractError(await chunkWithLength(String(MAX_SIZE + 1)), 400, 'Invalid chunk');
      await expectContractError(await chunkWithLength('18446744073709551615'), 400, 'Invalid chunk');
      const chunked = await rawRequest(service.url, {
        method: 'POST',
        target: `/chunks/arweave/${uploadId}/0`,
        headers: { 'transfer-encoding': 'chunked' },
        body: Buffer.from('3\r\nabc\r\n0\r\n\r\n'),
      });
      await expectContractError(chunked, 400, 'Invalid chunk');
    });

    it('answers 400 Bad Request to negative, non-numeric, float, hex and exponent content-lengths', async () => {
      for (const length of ['-1', 'abc', '1.5', '0x10', '1e3', '99999999999999999999999999']) {
        await expectContractError(await chunkWithLength(length, Buffer.from('abc')), 400, 'Bad Request');
      }
    });

    it('records nothing of a chunk whose body is cut short', async () => {
      await rawRequest(service.url, {
        method: 'POST',
        target: `/chunks/arweave/${uploadId}/0`,
        headers: { 'content-length': '5000' },
        body: randomBytes(1000),
        halfClose: true,
      }).catch(() => undefined);
      const view = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`);
      expect((await view.json()).chunks).to.deep.equal([]);
    });
  });

  describe('chunk sets that do not tile the item', () => {
    let item: DataItem;
    let raw: Buffer;
    before(async () => {
      item = await signedItem((await signers()).ed25519, randomBytes(9000), { tags: [{ name: 'Content-Type', value: 'text/plain' }] });
      raw = item.getRaw();
    });

    /** uploads the given [offset, length] pieces of the item (or of `bytes`) and finalizes synchronously */
    async function uploadPieces(pieces: [number, number][], bytes: Uint8Array = raw) {
      const id = await createUpload(service.url);
      uploads.push(id);
      for (const [offset, length] of pieces) {
        const res = await postChunk(service.url, id, offset, bytes.subarray(offset, offset + length));
        expect(res.status, `chunk ${offset}+${length}`).to.equal(200);
      }
      return { id, res: await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' }) };
    }
    const longer = () => Buffer.concat([raw, randomBytes(500)]);

    const cases: [string, () => [number, number][], (() => Uint8Array)?][] = [
      [
        'a gap',
        () => [
          [0, 3000],
          [4000, raw.length - 4000],
        ],
      ],
      [
        'an overlap',
        () => [
          [0, 3000],
          [2500, raw.length - 2500],
        ],
      ],
      ['no chunk at offset 0', () => [[1, raw.length - 1]]],
      [
        'a chunk past the end, after a gap',
        () => [
          [0, raw.length],
          [raw.length + 100, 50],
        ],
        longer,
      ],
      [
        'a chunk right after the end',
        () => [
          [0, raw.length],
          [raw.length, 50],
        ],
        longer,
      ],
      [
        'the last chunk re-sent shorter',
        () => [
          [0, 3000],
          [3000, raw.length - 3000],
          [3000, 1000],
        ],
      ],
      [
        'the first chunk re-sent longer, overlapping the next',
        () => [
          [0, 3000],
          [3000, raw.length - 3000],
          [0, 3001],
        ],
      ],
    ];
    for (const [name, pieces, bytes] of cases) {
      it(`answers 400 Invalid Data Item to ${name}, marks the upload INVALID and deletes its bytes`, async () => {
        const { id, res } = await uploadPieces(pieces(), bytes?.());
        await expectContractError(res, 400, 'Invalid Data Item');
        expect((await (await fetch(`${service.url}/chunks/arweave/${id}/status`)).json()).status).to.equal('INVALID');
        expect(await storedKeys(service.dataDir, `uploads/${id}`)).to.deep.equal([]);
        await expectContractError(await postChunk(service.url, id, 0, raw.subarray(0, 10)), 409, 'Upload already finalized');
      });
    }

    it('accepts the same item in chunks sent out of order, one of them twice', async () => {
      const { res } = await uploadPieces([
        [6000, raw.length - 6000],
        [3000, 3000],
        [0, 3000],
        [3000, 3000],
      ]);
      expect(res.status).to.equal(200);
      expect((await res.json()).id).to.equal(item.id);
      accepted.add(item.id);
    });
  });

  describe('after the corpus', () => {
    it('still answers GET /info with 200', async () => {
      expect((await fetch(`${service.url}/info`)).status).to.equal(200);
    });

    it('keeps no bytes of any refused request once the uploads are finalized', async () => {
      for (const id of uploads) {
        const res = await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' });
        expect(res.status, id).to.be.oneOf([200, 400]);
      }
      await expectOnlyAcceptedBlobs(service.dataDir, accepted);
    });
  });
});
