import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { DataItemId } from '../../src/domain/ids.js';
import { UploadId } from '../../src/domain/upload/ids.js';
import { otherSpellings, withSpareBits } from '../support/idSpellings.js';

const ADMIN_TOKEN = 'test-admin-token-of-the-id-spellings';

/** CONTRACT.md section 10: any spelling of an id is brought to the canonical one before anything is looked up by it. */
describe('a data item id in another spelling (the spare bits of its last character set)', function () {
  this.timeout(60_000);
  let service: TestService;
  let id: string;
  before(async () => {
    service = await startTestService({ ADMIN_TOKEN });
    const item = await signedItem(signers.arweave(), randomBytes(500), [{ name: 'Content-Type', value: 'text/plain' }]);
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status).to.equal(200);
    id = item.id;
  });
  after(() => service?.close());

  const answerOf = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${service.url}${path}`, init);
    const headers = ['content-type', 'content-length', 'etag', 'cache-control'].map((h) => res.headers.get(h));
    return { status: res.status, reason: res.statusText, headers, body: await res.text() };
  };

  it('is answered by every read route as the canonical id is, HEAD too', async () => {
    expect(Buffer.from(otherSpellings(id)[0]!, 'base64url').equals(Buffer.from(id, 'base64url'))).to.equal(true);
    for (const route of [
      (i: string) => `/tx/${i}/status`,
      (i: string) => `/v1/tx/${i}/status`,
      (i: string) => `/tx/${i}/offsets`,
      (i: string) => `/tx/${i}/receipt`,
      (i: string) => `/${i}`,
      (i: string) => `/tx/${i}/data`,
      (i: string) => `/v1/tx/${i}`,
    ]) {
      for (const method of ['GET', 'HEAD']) {
        const canonical = await answerOf(route(id), { method });
        expect(canonical.status, route(id)).to.be.oneOf([200, 404]);
        for (const spelled of otherSpellings(id)) expect(await answerOf(route(spelled), { method }), `${method} ${route(spelled)}`).to.deep.equal(canonical);
      }
    }
    expect((await answerOf(`/tx/${otherSpellings(id)[2]!}/status`)).status).to.equal(200);
  });

  it("an unknown id is TX doesn't exist in every spelling", async () => {
    const unknown = Buffer.alloc(32, 7).toString('base64url');
    for (const spelled of [unknown, ...otherSpellings(unknown)]) {
      expect(await answerOf(`/tx/${spelled}/status`), spelled).to.deep.include({ status: 404, reason: "TX doesn't exist" });
    }
  });

  it('is the same item to the admin routes: requeueing an item that is not FAILED is refused alike', async () => {
    const requeue = (i: string) =>
      answerOf(`/admin/items/${i}/requeue`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ by: 'alice', reason: 'spelling' }),
      });
    const canonical = await requeue(id);
    expect([canonical.status, canonical.body]).to.deep.equal([409, 'Data item not failed']);
    for (const spelled of otherSpellings(id)) expect(await requeue(spelled), spelled).to.deep.equal(canonical);
  });

  it('parses at the edge to the canonical id (DataItemId, and UploadId for ids with spare bits)', () => {
    for (const spelled of otherSpellings(id)) expect(DataItemId.parse(spelled)).to.equal(id);
    const upload = Buffer.alloc(16, 9).toString('base64url'); // 22 characters: 4 spare bits in the last
    expect(UploadId.parse(withSpareBits(upload, 15))).to.equal(upload);
    expect(UploadId.parse(randomBytes(18).toString('base64url'))).to.have.length(24);
    expect(UploadId.safeParse('A'.repeat(25)).success).to.equal(false);
  });
});
