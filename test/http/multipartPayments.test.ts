import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, expectText, postChunk, postChunks } from '../support/multipart.js';
import { nativeAddress } from '../../src/verify/index.js';
import { storedBlob } from '../support/storedBlob.js';

const meta = { correlationId: 'test' };

describe('multi-part uploads and payments', function () {
  this.timeout(60_000);
  let service: TestService;
  beforeEach(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: '3000', PRICE_WINC_PER_BYTE: '1' });
  });
  afterEach(() => service.close());

  async function credit(address: string, winc: bigint) {
    const { position } = await service.accounts.execute({ type: 'Credit', data: { address, winc, creditId: String(winc), now: Date.now() } }, meta);
    await service.projections.waitFor(position!, 5000);
  }

  it('answers 402 to the chunk that takes the upload past what the owner can pay, once the header is in', async () => {
    const item = await itemOfSize(signers.ethereum(), 12_000);
    const raw = item.getRaw();
    await credit(nativeAddress(3, item.rawOwner), 8_000n);
    const id = await createUpload(service.url);
    expect((await postChunk(service.url, id, 0, raw.subarray(0, 4000))).status).to.equal(200);
    expect((await postChunk(service.url, id, 4000, raw.subarray(4000, 8000))).status).to.equal(200);
    await expectText(await postChunk(service.url, id, 8000, raw.subarray(8000)), 402, 'Insufficient balance');
    const view = await (await fetch(`${service.url}/chunks/arweave/${id}/-1`)).json();
    expect(view.chunks).to.deep.equal([
      [0, 4000],
      [4000, 4000],
    ]);
  });

  it('shows UNDERFUNDED when the payer cannot pay at finalize, and finalizes when asked again after a credit', async () => {
    const item = await itemOfSize(signers.ethereum(), 9_000);
    const owner = nativeAddress(3, item.rawOwner);
    const id = await createUpload(service.url);
    await credit(owner, 9_001n);
    await postChunks(service.url, id, item.getRaw(), 3000, [2, 1, 0]);
    // between the last chunk and the finalize, the owner's credits go to another upload
    await service.accounts.execute(
      { type: 'Reserve', data: { address: owner, reservationId: 'elsewhere', winc: 9_000n, dataItemId: 'other', now: Date.now() } },
      meta,
    );
    await expectText(await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' }), 402, 'Insufficient balance');
    expect((await (await fetch(`${service.url}/chunks/arweave/${id}/status`)).json()).status).to.equal('UNDERFUNDED');
    await service.accounts.execute({ type: 'Release', data: { address: owner, reservationId: 'elsewhere', reason: 'test', now: Date.now() } }, meta);
    const res = await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' });
    expect(res.status).to.equal(200);
    expect((await res.json()).data.winc).to.equal('9000');
    const balance = await (await fetch(`${service.url}/account/balance/${owner}`)).json();
    expect(balance).to.include({ winc: '1', spentWinc: '9000', reservedWinc: '0' });
  });

  it('takes the chunks of an item accepted already, by a payer who can pay for it once, and finalizes it charging nothing more', async () => {
    const item = await itemOfSize(signers.ethereum(), 9_000);
    const owner = nativeAddress(3, item.rawOwner);
    await credit(owner, 9_000n);
    const first = await createUpload(service.url);
    await postChunks(service.url, first, item.getRaw(), 3000);
    const paid = await fetch(`${service.url}/chunks/arweave/${first}/-1`, { method: 'POST' });
    expect(paid.status).to.equal(200);
    const receipt = (await paid.json()).data;
    // the owner can pay for nothing more; the same item uploaded again: the header chunk first (the
    // later chunks find the item by the recorded header chunk), then the header chunk last
    for (const order of [
      [0, 1, 2],
      [2, 1, 0],
    ]) {
      const again = await createUpload(service.url);
      for (const i of order) {
        const res = await postChunk(service.url, again, i * 3000, item.getRaw().subarray(i * 3000, (i + 1) * 3000));
        expect(res.status, `chunk ${i} of ${order.join(',')}`).to.equal(200);
      }
      // already stored: 202 Data Item Exists with the original receipt (CONTRACT.md section 1)
      const res = await fetch(`${service.url}/chunks/arweave/${again}/-1`, { method: 'POST' });
      expect(res.status).to.equal(202);
      expect(await res.json()).to.deep.equal({ id: item.id, data: receipt });
      expect((await (await fetch(`${service.url}/chunks/arweave/${again}/status`)).json()).status).to.equal('FINALIZED');
    }
    const balance = await (await fetch(`${service.url}/account/balance/${owner}`)).json();
    expect(balance).to.include({ winc: '0', spentWinc: '9000', reservedWinc: '0' });
  });
});

describe('multi-part finalization after a crash', function () {
  this.timeout(60_000);
  let service: TestService;
  beforeEach(async () => {
    service = await startTestService();
  });
  afterEach(() => service.close());

  async function requested(raw: Uint8Array, chunkSize = 4000) {
    const id = await createUpload(service.url);
    await postChunks(service.url, id, raw, chunkSize);
    // what a process that crashed right after recording the async finalize request leaves behind
    const { position } = await service.multipart.uploads.execute(
      { type: 'RequestFinalize', data: { uploadId: id, mode: 'async', paidBy: [], now: Date.now() } },
      meta,
    );
    await service.projections.waitFor(position!, 5000);
    return id;
  }

  /** what a process that crashed right after validating the item leaves recorded */
  const validated = (uploadId: string, dataItemId: string, size: number) =>
    service.multipart.uploads.execute({ type: 'MarkValidated', data: { uploadId, dataItemId, size, now: Date.now() } }, meta);

  /** the maintenance pass resumes the finalization: the upload is FINALIZED and its item CONFIRMED */
  async function expectResumedToFinalized(uploadId: string, dataItemId: string) {
    await service.finalizer.resume();
    await service.finalizer.idle();
    const status = await (await fetch(`${service.url}/chunks/arweave/${uploadId}/status`)).json();
    expect(status.status).to.equal('FINALIZED');
    const tx = await (await fetch(`${service.url}/tx/${dataItemId}/status`)).json();
    expect(tx).to.include({ status: 'CONFIRMED', rawContentLength: 10_000 });
  }

  it('resumes an async finalization that was asked and never run', async () => {
    const item = await itemOfSize(signers.arweave(), 10_000);
    const id = await requested(item.getRaw());
    expect(await service.finalizer.resume()).to.equal(1);
    await service.finalizer.idle();
    const status = await (await fetch(`${service.url}/chunks/arweave/${id}/status`)).json();
    expect(status.status).to.equal('FINALIZED');
    expect(status.receipt.id).to.equal(item.id);
  });

  it('resumes a finalization that crashed after moving the one chunk blob, before recording the acceptance', async () => {
    const item = await itemOfSize(signers.arweave(), 10_000);
    const id = await requested(item.getRaw(), 10_000);
    await validated(id, item.id, item.getRaw().length);
    const upload = await service.multipart.uploads.read(id);
    await service.blobStore.move(upload!.chunks.get(0)!.blobKey, `items/${item.id}`);
    await expectResumedToFinalized(id, item.id);
  });

  it('resumes a finalization that crashed after composing the item blob of its chunks, before recording the acceptance', async () => {
    const item = await itemOfSize(signers.arweave(), 10_000);
    const id = await requested(item.getRaw());
    await validated(id, item.id, item.getRaw().length);
    const upload = await service.multipart.uploads.read(id);
    const chunks = [...upload!.chunks.values()].sort((a, b) => a.offset - b.offset);
    expect(chunks).to.have.length(3);
    await service.blobStore.compose!(
      `items/${item.id}`,
      chunks.map((chunk) => ({ key: chunk.blobKey, start: 0, length: chunk.length })),
    );
    await expectResumedToFinalized(id, item.id);
    // composed again of the same chunks, which are gone now: the item keeps their bytes
    const stored = await storedBlob(service.dataDir, `items/${item.id}`);
    expect(Buffer.compare(stored!, item.getRaw())).to.equal(0);
    expect(await service.blobStore.stat(chunks[0]!.blobKey)).to.equal(undefined);
  });

  it('resumes a finalization that crashed after copying several chunks into the item blob, before recording the acceptance', async () => {
    const item = await itemOfSize(signers.arweave(), 10_000);
    const id = await requested(item.getRaw());
    await validated(id, item.id, item.getRaw().length);
    await service.blobStore.put(
      `items/${item.id}`,
      (async function* () {
        yield item.getRaw();
      })(),
    );
    await expectResumedToFinalized(id, item.id);
  });
});
