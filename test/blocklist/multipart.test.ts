import { expect } from 'chai';
import { toChecksumAddress } from '../../src/verify/index.js';
import type { TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, expectText as expectUploadText, postChunk } from '../support/multipart.js';
import { rawConnection, uploadHead } from '../limits/support.js';
import { admin, block, credit, ownerOf, startBlocklistService, unblock } from './support.js';

const refusal = (status: number, message: string) => new RegExp(`^HTTP/1\\.1 ${status} ${message}\\r\\n[^]*\\r\\n\\r\\n${message}$`);

const view = async (service: TestService, uploadId: string) => await (await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`)).json();
const status = async (service: TestService, uploadId: string) => (await (await fetch(`${service.url}/chunks/arweave/${uploadId}/status`)).json()).status;

describe('block list: multi-part uploads', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startBlocklistService();
  });
  after(() => service?.close());

  it('refuses the header chunk of a blocked owner with 403 Forbidden as soon as its header is in, and records nothing', async () => {
    const item = await itemOfSize(signers.ethereum(), 300_000);
    await block(service, ownerOf(item));
    const uploadId = await createUpload(service.url);
    // the client sends the header and a few bytes of a 100 kB chunk, then waits
    const conn = await rawConnection(service.url);
    conn.socket.write(uploadHead(`/chunks/arweave/${uploadId}/0`, { 'Content-Length': '100000' }));
    conn.socket.write(item.getRaw().subarray(0, item.getStartOfData() + 10));
    expect(await conn.closed).to.match(refusal(403, 'Forbidden'));
    expect((await view(service, uploadId)).chunks).to.deep.equal([]);
    expect(await status(service, uploadId)).to.equal('ASSEMBLING');
  });

  it('refuses the later chunks and the finalize once the owner known from the header chunk is blocked; unblocked, it finishes', async () => {
    const item = await itemOfSize(signers.ethereum(), 6000);
    const owner = ownerOf(item);
    await credit(service, owner, 10_000);
    const raw = item.getRaw();
    const uploadId = await createUpload(service.url);
    expect((await postChunk(service.url, uploadId, 0, raw.subarray(0, 3000))).status).to.equal(200);
    await block(service, owner);

    // refused before its body is read: no 100 Continue
    const conn = await rawConnection(service.url);
    conn.socket.write(uploadHead(`/chunks/arweave/${uploadId}/3000`, { 'Content-Length': '3000', Expect: '100-continue' }));
    const received = await conn.closed;
    expect(received).to.match(refusal(403, 'Forbidden'));
    expect(received).not.to.include('100 Continue');
    await expectUploadText(await postChunk(service.url, uploadId, 3000, raw.subarray(3000)), 403, 'Forbidden');
    expect((await view(service, uploadId)).chunks).to.deep.equal([[0, 3000]]);

    await expectUploadText(await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' }), 403, 'Forbidden');
    await expectUploadText(await fetch(`${service.url}/chunks/arweave/${uploadId}/finalize`, { method: 'POST' }), 403, 'Forbidden');
    expect(await status(service, uploadId)).to.equal('ASSEMBLING');
    expect((await (await admin(service, 'GET', `/accounts/${owner}`)).json()).winc).to.equal('10000');

    await unblock(service, owner);
    expect((await postChunk(service.url, uploadId, 3000, raw.subarray(3000))).status).to.equal(200);
    const res = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
    expect(res.status).to.equal(200);
    expect((await res.json()).id).to.equal(item.id);
  });

  it('refuses a chunk and a finalize that name a blocked payer', async () => {
    const payer = toChecksumAddress('0x' + '8'.repeat(40));
    await block(service, payer);
    const item = await itemOfSize(signers.ethereum(), 900); // free
    const uploadId = await createUpload(service.url);
    const withPayer = { 'content-type': 'application/octet-stream', 'x-paid-by': payer };
    const chunk = (body: Uint8Array) =>
      fetch(`${service.url}/chunks/arweave/${uploadId}/0`, { method: 'POST', body: new Uint8Array(body), headers: withPayer });
    await expectUploadText(await chunk(item.getRaw()), 403, 'Forbidden');
    expect((await postChunk(service.url, uploadId, 0, item.getRaw())).status).to.equal(200);
    const finalize = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST', headers: { 'x-paid-by': payer } });
    await expectUploadText(finalize, 403, 'Forbidden');
    expect(await status(service, uploadId)).to.equal('ASSEMBLING');
  });
});
