import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { Uploader } from '@irys/upload';
import { Ethereum } from '@irys/upload-ethereum';
import { startTestService, type TestService } from '../support/testService.js';
import { createUpload, postChunk } from '../support/multipart.js';
import { recordForeignConnections, recordRequests, type RequestLog } from './support/observe.js';
import { expectNewStatus, expectStoredAsSigned } from './support/stored.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/** small chunks keep the test fast and make many of them (Irys' default is 25 MB) */
const CHUNK = 512 * KiB;
const contentType = 'application/x-irys-test';
const tags = [{ name: 'Content-Type', value: contentType }];

type Irys = Awaited<ReturnType<ReturnType<typeof Uploader>['build']>>;
type IrysReceipt = Parameters<Irys['utils']['verifyReceipt']>[0];
/**
 * What the chunked uploader resolves to is the finalize answer `{ id, data: receipt }` (Irys binds
 * its verify to `.data.data`), though its declarations call it the receipt.
 */
type FinalizeBody = { id: string; data: IrysReceipt };
const finalizeBodyOf = (res: { data: unknown }) => res.data as FinalizeBody;

const sha256b64 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url');
/** Irys' own DataItem.id is base58 of the raw id; receipts, the service and Arweave use base64url. */
const idOf = (tx: { rawId: Uint8Array }) => Buffer.from(tx.rawId).toString('base64url');
const offsetsOf = (raw: number) => Array.from({ length: Math.ceil(raw / CHUNK) }, (_, i) => i * CHUNK);

/** the payload as a stream of 64 KiB pieces, the way a file would arrive */
const streamOf = (payload: Buffer) =>
  Readable.from(
    (function* () {
      for (let at = 0; at < payload.length; at += 64 * KiB) yield payload.subarray(at, at + 64 * KiB);
    })(),
  );

describe('Irys uploader (@irys/upload 0.0.15, ethereum) against the service', function () {
  this.timeout(60_000);
  let service: TestService;
  let irys: Irys;
  let requests: RequestLog;
  let foreign: ReturnType<typeof recordForeignConnections>;
  let builtWith: string[];

  before(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(64 * MiB) });
    requests = recordRequests(service.server!);
    foreign = recordForeignConnections([service.url, service.gatewayUrl]);
    irys = await Uploader(Ethereum).withWallet(randomBytes(32).toString('hex')).bundlerUrl(service.url);
    builtWith = requests.entries;
  });
  beforeEach(() => requests.clear());
  after(async () => {
    foreign.stop();
    requests.stop();
    await service.close();
  });

  /** Irys checks the receipt with its own code; the service stored exactly what Irys signed. */
  async function expectAccepted(receipt: IrysReceipt, payload: Uint8Array) {
    expect(await irys.utils.verifyReceipt(receipt), 'irys.utils.verifyReceipt').to.equal(true);
    const item = await expectStoredAsSigned(service, receipt.id, payload);
    expect((receipt as unknown as { owner: string }).owner).to.equal(sha256b64(item.rawOwner));
    expect(item.tags).to.deep.include({ name: 'Content-Type', value: contentType });
    await expectNewStatus(service, receipt.id, { raw: item.getRaw().length, payload: payload.length, contentType });
    expect(foreign.origins, 'hosts other than the service').to.deep.equal([]);
    return item;
  }

  it('builds and readies without asking the service or any other host anything', () => {
    expect(builtWith).to.deep.equal([]);
    expect(foreign.origins).to.deep.equal([]);
    expect(irys.token).to.equal('ethereum');
  });

  describe('single upload (POST /tx/ethereum at the root)', () => {
    for (const [name, size] of [
      ['1 KiB', KiB],
      ['1 MiB', MiB],
    ] as const) {
      it(`uploads ${name} with irys.upload and the receipt verifies`, async () => {
        const payload = randomBytes(size);
        const receipt = await irys.upload(payload, { tags });
        expect(requests.entries).to.deep.equal(['POST /tx/ethereum -> 200']);
        await expectAccepted(receipt, payload);
      });
    }

    it('uploads an item with an optional tag left empty and a nameless tag, as arbundles makes them', async () => {
      const payload = randomBytes(KiB);
      const receipt = await irys.upload(payload, { tags: [...tags, { name: 'App-Version', value: '' }, { name: '', value: 'x' }] });
      expect(requests.entries).to.deep.equal(['POST /tx/ethereum -> 200']);
      await expectAccepted(receipt, payload);
    });

    it('uploads a pre-signed item, and a re-send gets 202 Data Item Exists with the same receipt, which Irys accepts', async () => {
      const payload = randomBytes(KiB);
      const tx = irys.createTransaction(payload, { tags });
      await tx.sign();
      const first = await irys.uploader.uploadTransaction(tx);
      const again = await irys.uploader.uploadTransaction(tx);
      expect(requests.entries).to.deep.equal(['POST /tx/ethereum -> 200', 'POST /tx/ethereum -> 202']);
      expect(first.status).to.equal(200);
      expect(again.status).to.equal(202);
      expect(again.statusText).to.equal('Data Item Exists');
      const { verify: _v1, ...receipt } = first.data;
      const { verify: _v2, ...repeated } = again.data;
      expect(repeated).to.deep.equal(receipt);
      expect(first.data.id).to.equal(idOf(tx));
      await expectAccepted(first.data, payload);
    });
  });

  describe('chunked upload (irys.uploader.chunkedUploader, synchronous finalize)', () => {
    /**
     * The sequence Irys sends: create, chunks 5 at a time, finalize. When it signs while it streams
     * (uploadData) it holds back the chunk at offset 0, whose signature it only knows at the end.
     */
    function expectSequence(seen: string[], raw: number, { offsetZeroLast }: { offsetZeroLast: boolean }) {
      const [create, ...rest] = seen;
      expect(create).to.equal('GET /chunks/ethereum/-1/-1 -> 200');
      const uploadId = rest[0]!.split('/')[3];
      const chunkPosts = rest.slice(0, -1);
      const expected = offsetsOf(raw).map((offset) => `POST /chunks/ethereum/${uploadId}/${offset} -> 200`);
      expect([...chunkPosts].sort()).to.deep.equal([...expected].sort());
      if (offsetZeroLast) expect(chunkPosts.at(-1)).to.equal(`POST /chunks/ethereum/${uploadId}/0 -> 200`);
      expect(rest.at(-1)).to.equal(`POST /chunks/ethereum/${uploadId}/-1 -> 200`);
    }

    for (const [name, size, source] of [
      ['1 MiB from a Buffer', MiB, 'buffer'],
      ['20 MiB from a Buffer', 20 * MiB, 'buffer'],
      ['20 MiB from a Readable stream', 20 * MiB, 'stream'],
    ] as const) {
      it(`streams and signs ${name} in 512 KiB chunks, sending offset 0 last, and the receipt in data verifies`, async () => {
        const payload = randomBytes(size);
        const uploader = irys.uploader.chunkedUploader.setChunkSize(CHUNK);
        const res = await uploader.uploadData(source === 'buffer' ? payload : streamOf(payload), { tags });
        const seen = requests.entries;
        expect(res.status).to.equal(200);
        const body = finalizeBodyOf(res);
        expect(body.data.id).to.equal(body.id);
        const item = await expectAccepted(body.data, payload);
        expectSequence(seen, item.getRaw().length, { offsetZeroLast: true });
      });
    }

    it('uploads a file with irys.uploadFile: its default 25 MB chunk holds it all, sent at offset 0, then the finalize', async () => {
      const payload = randomBytes(MiB);
      const dir = await mkdtemp(join(tmpdir(), 'irys-file-'));
      try {
        const path = join(dir, 'payload.bin');
        await writeFile(path, payload);
        const body = (await irys.uploadFile(path, { tags })) as unknown as FinalizeBody;
        const seen = requests.entries;
        const uploadId = seen[1]?.split('/')[3];
        expect(seen).to.deep.equal([
          'GET /chunks/ethereum/-1/-1 -> 200',
          `POST /chunks/ethereum/${uploadId}/0 -> 200`,
          `POST /chunks/ethereum/${uploadId}/-1 -> 200`,
        ]);
        await expectAccepted(body.data, payload);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    for (const [name, size] of [
      ['1 MiB', MiB],
      ['20 MiB', 20 * MiB],
    ] as const) {
      it(`uploads a pre-signed ${name} item in 512 KiB chunks with uploadTransaction and the receipt in data verifies`, async () => {
        const payload = randomBytes(size);
        const tx = irys.createTransaction(payload, { tags });
        await tx.sign();
        const res = await irys.uploader.chunkedUploader.setChunkSize(CHUNK).uploadTransaction(tx);
        const seen = requests.entries;
        expect(res.status).to.equal(200);
        const body = finalizeBodyOf(res);
        expect(body.id).to.equal(idOf(tx));
        expect(body.data.id).to.equal(idOf(tx));
        await expectAccepted(body.data, payload);
        expectSequence(seen, tx.getRaw().length, { offsetZeroLast: false });
      });
    }
  });

  describe('resuming a chunked upload (setResumeData)', () => {
    /** what an interrupted earlier run left: the upload and its first `count` chunks */
    async function interruptedUpload(raw: Uint8Array, count: number) {
      const uploadId = await createUpload(service.url, '', 'ethereum');
      for (const offset of offsetsOf(raw.length).slice(0, count)) {
        expect((await postChunk(service.url, uploadId, offset, raw.subarray(offset, offset + CHUNK), 'ethereum')).status).to.equal(200);
      }
      requests.clear();
      return uploadId;
    }

    it('reads the view (size equal to its chunk size), sends only the missing chunk and finalizes', async () => {
      const payload = randomBytes(MiB);
      const tx = irys.createTransaction(payload, { tags });
      await tx.sign();
      const raw = tx.getRaw();
      const uploadId = await interruptedUpload(raw, 2);
      const res = await irys.uploader.chunkedUploader.setChunkSize(CHUNK).setResumeData(uploadId).uploadTransaction(tx);
      expect(requests.entries).to.deep.equal([
        `GET /chunks/ethereum/${uploadId}/-1 -> 200`,
        `POST /chunks/ethereum/${uploadId}/${2 * CHUNK} -> 200`,
        `POST /chunks/ethereum/${uploadId}/-1 -> 200`,
      ]);
      const body = finalizeBodyOf(res);
      expect(body.id).to.equal(idOf(tx));
      await expectAccepted(body.data, payload);
    });
  });

  describe('when the payer cannot pay (default free limit, unfunded wallet)', () => {
    it('surfaces 402 Insufficient balance as its "402 error" on a single upload', async () => {
      const unfunded = await startTestService();
      try {
        const client = await Uploader(Ethereum).withWallet(randomBytes(32).toString('hex')).bundlerUrl(unfunded.url);
        const error = await client.upload(randomBytes(MiB)).then(
          () => undefined,
          (e: Error) => e,
        );
        expect(error?.message).to.equal('402 error: Insufficient balance');
      } finally {
        await unfunded.close();
      }
    });
  });
});
