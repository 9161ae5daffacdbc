import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { SERVICE_WALLET_FILE, startTestService, TEST_BLOCK_HEIGHT, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { arweaveAccepts, irysAccepts } from '../support/clientChecks.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { smallBlobKeys, storedBlob } from '../support/storedBlob.js';

const b64sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url');
const octets = { 'content-type': 'application/octet-stream' };

async function post(service: TestService, path: string, body: Uint8Array, headers: Record<string, string> = octets) {
  return fetch(`${service.url}${path}`, { method: 'POST', body: asBody(body), headers });
}

async function expectError(res: Response, status: number, message: string) {
  expect(res.status).to.equal(status);
  expect(res.statusText).to.equal(message);
  expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
  expect(await res.text()).to.equal(message);
}

describe('single upload (POST /tx)', function () {
  let service: TestService;
  before(async () => {
    service = await startTestService({ MAX_DATA_ITEM_SIZE: '100000' });
  });
  after(() => service.close());

  it('answers 200 with a signed receipt for an arweave-signed item', async () => {
    const item = await signedItem(signers.arweave(), 'hello permaweb');
    const before = Date.now();
    const res = await post(service, '/tx', item.getRaw());
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    const receipt = await res.json();
    expect(Object.keys(receipt)).to.deep.equal([
      'id',
      'owner',
      'dataCaches',
      'fastFinalityIndexes',
      'deadlineHeight',
      'timestamp',
      'version',
      'winc',
      'public',
      'signature',
    ]);
    expect(receipt.id).to.equal(item.id);
    expect(receipt.owner).to.equal(b64sha256(item.rawOwner));
    // no PUBLIC_URL, no DATA_CACHES: no host holds the item yet (the gateway only once bundled)
    expect(receipt.dataCaches).to.deep.equal([]);
    expect(receipt.fastFinalityIndexes).to.deep.equal([]);
    expect(receipt.deadlineHeight).to.equal(TEST_BLOCK_HEIGHT + 200);
    expect(receipt.timestamp).to.be.within(before, Date.now());
    expect(receipt.version).to.equal('0.2.0');
    expect(receipt.winc).to.equal('0');
    expect(receipt.public).to.equal(JSON.parse(await readFile(SERVICE_WALLET_FILE, 'utf8')).n);
    expect(await arweaveAccepts(receipt)).to.equal(true);
    expect(await irysAccepts(receipt)).to.equal(true);
  });

  it('serves the same upload at /v1/tx and /tx/:token for every signature type', async () => {
    for (const [path, signer] of [
      ['/v1/tx', signers.arweave()],
      ['/tx/ethereum', signers.ethereum()],
      ['/v1/tx/solana', signers.solana()],
      ['/tx/kyve', signers.hexSolana()],
      ['/tx/base-usdc', signers.ethereum()],
    ] as const) {
      const item = await signedItem(signer);
      const res = await post(service, path, item.getRaw());
      expect(res.status, path).to.equal(200);
      expect((await res.json()).id).to.equal(item.id);
    }
  });

  it('stores the exact bytes under items/<id>: a small item as a row of the small-blob file, a larger one as the file items/<id>', async () => {
    const small = await signedItem(signers.ethereum(), new Uint8Array(5000).fill(7));
    const large = await signedItem(signers.ethereum(), new Uint8Array(70_000).fill(8));
    for (const item of [small, large]) expect((await post(service, '/tx', item.getRaw())).status).to.equal(200);
    expect(smallBlobKeys(service.dataDir)).to.include(`items/${small.id}`).and.not.include(`items/${large.id}`);
    expect(Buffer.compare((await storedBlob(service.dataDir, `items/${small.id}`))!, small.getRaw())).to.equal(0);
    expect(Buffer.compare(await readFile(join(service.dataDir, 'blobs', 'items', large.id)), large.getRaw())).to.equal(0);
  });

  it('accepts a content type with parameters and no content type at all', async () => {
    const a = await signedItem(signers.ethereum());
    expect((await post(service, '/tx', a.getRaw(), { 'content-type': 'Application/Octet-Stream; charset=binary' })).status).to.equal(200);
    const b = await signedItem(signers.ethereum());
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(b.getRaw()) })).status).to.equal(200);
  });

  it('answers a re-sent item with 202 Data Item Exists and the original receipt', async () => {
    const item = await signedItem(signers.arweave());
    const first = await post(service, '/tx', item.getRaw());
    const original = await first.json();
    const again = await post(service, '/v1/tx/arweave', item.getRaw());
    expect(again.status).to.equal(202);
    expect(again.statusText).to.equal('Data Item Exists');
    expect(await again.json()).to.deep.equal(original);
  });

  it('records exactly one acceptance when 50 uploads of the same item race', async () => {
    const item = await signedItem(signers.arweave());
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await post(service, '/tx', item.getRaw());
        return { status: res.status, receipt: await res.json() };
      }),
    );
    expect(answers.filter((a) => a.status === 200)).to.have.length(1);
    expect(answers.filter((a) => a.status === 202)).to.have.length(49);
    for (const a of answers) expect(a.receipt).to.deep.equal(answers[0]!.receipt);
    const events = [];
    for await (const e of service.eventStore.readStream(dataItemStream(item.id as DataItemId))) events.push(e.type);
    expect(events).to.deep.equal(['DataItemAccepted']);
  });

  it('answers 400 Invalid Content Type for another content type', async () => {
    const item = await signedItem(signers.arweave());
    await expectError(await post(service, '/tx', item.getRaw(), { 'content-type': 'application/json' }), 400, 'Invalid Content Type');
  });

  it('answers 400 Invalid Data Item for bytes that are not a data item', async () => {
    await expectError(await post(service, '/tx', new TextEncoder().encode('not a data item at all')), 400, 'Invalid Data Item');
    await expectError(await post(service, '/tx', new Uint8Array(0)), 400, 'Invalid Data Item');
  });

  it('answers 400 Invalid Data Item for a flipped payload bit and a truncated item, and stores nothing', async () => {
    const item = await signedItem(signers.arweave(), 'payload to tamper with');
    const flipped = Buffer.from(item.getRaw());
    flipped[flipped.length - 1]! ^= 1;
    await expectError(await post(service, '/tx', flipped), 400, 'Invalid Data Item');
    await expectError(await post(service, '/tx', item.getRaw().subarray(0, 600)), 400, 'Invalid Data Item');
    const status = await fetch(`${service.url}/tx/${item.id}/status`);
    expect(status.status).to.equal(404);
  });

  it('answers 413 Data item too large from the content-length and from the bytes received', async () => {
    const item = await signedItem(signers.ethereum(), new Uint8Array(100_001));
    await expectError(await post(service, '/tx', item.getRaw()), 413, 'Data item too large');
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(item.getRaw());
        controller.close();
      },
    });
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: chunked, headers: octets, duplex: 'half' } as RequestInit);
    await expectError(res, 413, 'Data item too large');
  });

  it('answers 400 Invalid token for a token of another shape', async () => {
    const item = await signedItem(signers.arweave());
    await expectError(await post(service, '/tx/Not_A_Token', item.getRaw()), 400, 'Invalid token');
  });

  it('answers 404 Not Found on unknown routes', async () => {
    await expectError(await fetch(`${service.url}/nope`), 404, 'Not Found');
    await expectError(await fetch(`${service.url}/v1/tx`), 404, 'Not Found');
  });
});
