import { expect } from 'chai';
import { DataItem, type Signer } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { encodeTags } from '../../src/verify/index.js';
import { assembledFor } from '../verify/support/assemble.js';
import { createUpload, expectText, postChunks } from '../support/multipart.js';

/**
 * Tags the ANS-104 text forbids but arbundles (and so the reference service and the gateways) accept:
 * empty names, empty values, more than 128 tags. Accepted by default; refused with STRICT_TAGS=true.
 * The 4096 tag bytes stay a limit under both rules.
 */
const many = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `Tag-${i}`, value: String(i) }));

const cases: [string, (signer: Signer) => Promise<DataItem>][] = [
  ['an empty tag value', (s) => signedItem(s, 'optional tag left empty', [{ name: 'App-Version', value: '' }])],
  ['an empty tag name', (s) => signedItem(s, 'a nameless tag', [{ name: '', value: 'value' }])],
  ['129 tags', (s) => signedItem(s, 'many tags', many(129))],
];

/** 4097 tag bytes: over arbundles' limit whatever the rules (arbundles' createData would not build it) */
const overTagBytes = (signer: Signer) =>
  assembledFor(signer, { tagCount: 1, rawTags: encodeTags([{ name: 'a', value: 'v'.repeat(4091) }]), payload: Buffer.from('x') });

const post = (service: TestService, item: DataItem) =>
  fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()), headers: { 'content-type': 'application/octet-stream' } });

async function finalizeInChunks(service: TestService, item: DataItem): Promise<Response> {
  const uploadId = await createUpload(service.url);
  await postChunks(service.url, uploadId, item.getRaw(), 2500);
  return fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
}

describe('tag rules', function () {
  this.timeout(60_000);

  describe('by default (as arbundles)', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService();
    });
    after(() => service?.close());

    for (const [what, make] of cases) {
      it(`accepts an item with ${what}, which arbundles verifies, and answers its status`, async () => {
        const item = await make(signers.ethereum());
        expect(await DataItem.verify(item.getRaw()), 'arbundles accepts it').to.equal(true);
        const res = await post(service, item);
        expect(res.status).to.equal(200);
        expect((await res.json()).id).to.equal(item.id);
        const status = await fetch(`${service.url}/tx/${item.id}/status`);
        expect(status.status).to.equal(200);
        expect(await status.json()).to.include({ status: 'CONFIRMED', info: 'new' });
      });
    }

    it('accepts such an item uploaded in chunks', async () => {
      const item = await signedItem(signers.solana(), new Uint8Array(6000).fill(1), [{ name: '', value: '' }, ...many(129)]);
      const res = await finalizeInChunks(service, item);
      expect(res.status).to.equal(200);
      expect((await res.json()).id).to.equal(item.id);
    });

    it('still refuses more than 4096 tag bytes', async () => {
      const item = await overTagBytes(signers.ethereum());
      expect(item.getRaw().readUInt32LE(2 + 65 + 65 + 2 + 8)).to.equal(4097); // the tag bytes length
      expect(await DataItem.verify(item.getRaw()), 'arbundles refuses it too').to.equal(false);
      await expectText(await post(service, item), 400, 'Invalid Data Item');
    });
  });

  describe('with STRICT_TAGS=true (the ANS-104 text)', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ STRICT_TAGS: 'true' });
    });
    after(() => service?.close());

    for (const [what, make] of cases) {
      it(`refuses an item with ${what}: Invalid Data Item, nothing recorded`, async () => {
        const item = await make(signers.ethereum());
        await expectText(await post(service, item), 400, 'Invalid Data Item');
        await expectText(await fetch(`${service.url}/tx/${item.id}/status`), 404, "TX doesn't exist");
      });
    }

    it('refuses such an item uploaded in chunks at finalize', async () => {
      const item = await signedItem(signers.solana(), new Uint8Array(6000).fill(1), [{ name: 'App-Version', value: '' }]);
      await expectText(await finalizeInChunks(service, item), 400, 'Invalid Data Item');
    });

    it('accepts 128 non-empty tags', async () => {
      const item = await signedItem(signers.ethereum(), 'x', many(128));
      expect((await post(service, item)).status).to.equal(200);
    });
  });
});
