import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { OTHER_CLIENT, post, rawConnection, tempFiles, uploadBytesTaken, uploadHead } from './support.js';
import { eventually } from '../support/eventually.js';

describe('uploads in flight per client (MAX_UPLOADS_PER_CLIENT)', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ MAX_UPLOADS_PER_CLIENT: '2' });
  });
  after(() => service.close());

  it('answers 429 Too Many Requests to a third upload of one address while two are in flight; another address is unaffected', async () => {
    // one single upload and one chunk, both holding their bodies back
    const held = await signedItem(signers.ethereum(), new Uint8Array(4000));
    const before = await uploadBytesTaken(service.url);
    const single = await rawConnection(service.url);
    single.socket.write(uploadHead('/tx', { 'Content-Length': String(held.getRaw().length) }));
    single.socket.write(held.getRaw().subarray(0, 100));
    const { id: uploadId } = await (await fetch(`${service.url}/chunks/arweave/-1/-1`)).json();
    const chunk = await rawConnection(service.url);
    chunk.socket.write(uploadHead(`/chunks/arweave/${uploadId}/0`, { 'Content-Length': '4000' }));
    chunk.socket.write(held.getRaw().subarray(0, 100));
    await eventually(
      async () => {
        const taken = await uploadBytesTaken(service.url);
        return taken.single === before.single + 100 && taken.chunk === before.chunk + 100;
      },
      Boolean,
      'the single upload and the chunk are being received',
    );

    const third = await signedItem(signers.ethereum(), 'a third upload');
    expect(await post(service.url, '/v1/tx', third.getRaw())).to.deep.equal({
      status: 429,
      statusText: 'Too Many Requests',
      contentType: 'text/plain; charset=utf-8',
      body: 'Too Many Requests',
      retryAfter: '1',
    });
    const fromOther = await post(service.url, '/tx', third.getRaw(), { localAddress: OTHER_CLIENT });
    expect(fromOther.status).to.equal(200);
    expect(JSON.parse(fromOther.body).id).to.equal(third.id);

    // the two given up: their places are free again, and the cut single upload left no temp file
    single.socket.destroy();
    chunk.socket.destroy();
    await eventually(async () => (await tempFiles(service.dataDir)).length === 0, Boolean, 'the cut upload deleted its temp file');
    const fourth = await signedItem(signers.ethereum(), 'a fourth upload');
    const later = await post(service.url, '/tx', fourth.getRaw());
    expect(later.status).to.equal(200);
    expect(JSON.parse(later.body).id).to.equal(fourth.id);
  });
});
