import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { createUpload, postChunk } from '../support/multipart.js';
import { itemOfSize } from '../support/sizedItem.js';
import { rawConnection, tempFiles, uploadBytesTaken, uploadHead, type RawConnection } from './support.js';
import { eventually } from '../support/eventually.js';

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

/** the answer to a request sent with `Expect: 100-continue` and no body, once the server closed the connection */
async function answerWithoutBody(service: TestService, path: string, headers: Record<string, string>, localAddress?: string): Promise<string> {
  const conn = await rawConnection(service.url, localAddress);
  const head = uploadHead(path, { Expect: '100-continue', ...headers });
  // uploadHead's content type, unless the test sends its own
  conn.socket.write(headers['Content-Type'] ? head.replace('Content-Type: application/octet-stream\r\n', '') : head);
  return conn.closed;
}

const refusal = (status: number, message: string) => new RegExp(`^HTTP/1\\.1 ${status} ${message}\\r\\n[^]*\\r\\n\\r\\n${message}$`);

describe('Expect: 100-continue on the upload routes', function () {
  this.timeout(60_000);
  let service: TestService;
  let uploadId: string;
  before(async () => {
    service = await startTestService({ MAX_UPLOADS_PER_CLIENT: '1', TEMP_SPACE_BYTES: '1000000' });
    ({ id: uploadId } = (await (await fetch(`${service.url}/chunks/arweave/-1/-1`)).json()) as { id: string });
  });
  after(() => service.close());

  const refusals: [string, string, Record<string, string>, number, string][] = [
    ['a declared length over the maximum', '/tx', { 'Content-Length': '3000000000' }, 413, 'Data item too large'],
    ['a declared length over the temporary space', '/v1/tx', { 'Content-Length': '2000000' }, 503, 'Service unavailable'],
    ['a content type not application/octet-stream', '/tx', { 'Content-Length': '1000', 'Content-Type': 'text/plain' }, 400, 'Invalid Content Type'],
    ['a token of another shape', '/tx/Not_A_Token', { 'Content-Length': '1000' }, 400, 'Invalid token'],
    ['a chunk over the largest chunk size', '/chunks/arweave/UPLOAD/0', { 'Content-Length': '500000001' }, 400, 'Invalid chunk'],
    [
      'a chunk of an unknown upload',
      '/chunks/arweave/00000000-0000-4000-8000-000000000000/0',
      { 'Content-Length': '1000' },
      404,
      'Multi-part upload not found',
    ],
  ];
  for (const [what, path, headers, status, message] of refusals) {
    it(`answers ${status} ${message} at once, without 100 Continue, to ${what}`, async () => {
      const received = await answerWithoutBody(service, path.replace('UPLOAD', uploadId), headers);
      expect(received).to.match(refusal(status, message));
      expect(received).not.to.include('100 Continue');
      expect(received).to.include('\r\nConnection: close\r\n');
    });
  }

  it('answers 402 Insufficient balance without 100 Continue to a chunk past what the owner can pay, once the header is in', async () => {
    const raw = (await itemOfSize(signers.ethereum(), 600_000)).getRaw();
    const id = await createUpload(service.url);
    expect((await postChunk(service.url, id, 0, raw.subarray(0, 4000))).status).to.equal(200);
    const received = await answerWithoutBody(service, `/chunks/arweave/${id}/596000`, { 'Content-Length': '4000' });
    expect(received).to.match(refusal(402, 'Insufficient balance'));
    expect(received).not.to.include('100 Continue');
  });

  it('answers 429 Too Many Requests without 100 Continue while the client has an upload in flight', async () => {
    const item = (await signedItem(signers.ethereum(), new Uint8Array(4000))).getRaw();
    const before = await uploadBytesTaken(service.url);
    const inFlight = await rawConnection(service.url, '127.0.0.5');
    inFlight.socket.write(uploadHead('/tx', { 'Content-Length': String(item.length) }));
    inFlight.socket.write(item.subarray(0, 100));
    await eventually(async () => (await uploadBytesTaken(service.url)).single === before.single + 100, Boolean, 'the first upload is being received');

    const received = await answerWithoutBody(service, '/tx', { 'Content-Length': String(item.length) }, '127.0.0.5');
    expect(received).to.match(refusal(429, 'Too Many Requests'));
    expect(received).not.to.include('100 Continue');
    inFlight.socket.destroy();
    await eventually(async () => (await tempFiles(service.dataDir)).length === 0, Boolean, 'the cut upload deleted its temp file');
  });

  /** sends the head, waits for 100 Continue, then the body: the answer once the server answered and closed */
  async function uploadAfterContinue(conn: RawConnection, path: string, body: Uint8Array): Promise<string> {
    conn.socket.write(uploadHead(path, { Expect: '100-continue', 'Content-Length': String(body.length), Connection: 'close' }));
    await eventually(() => conn.received() === CONTINUE, Boolean, '100 Continue');
    conn.socket.write(body);
    const received = await conn.closed;
    expect(received.startsWith(CONTINUE)).to.equal(true);
    return received.slice(CONTINUE.length);
  }

  it('sends 100 Continue to a valid single upload once its body is read, and takes it', async () => {
    const item = await signedItem(signers.ethereum(), 'uploaded with Expect: 100-continue');
    const conn = await rawConnection(service.url);
    const answer = await uploadAfterContinue(conn, '/tx', item.getRaw());
    expect(answer).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).id).to.equal(item.id);
  });

  it('sends 100 Continue to a valid chunk once its body is read, and stores it', async () => {
    const conn = await rawConnection(service.url);
    const answer = await uploadAfterContinue(conn, `/chunks/arweave/${uploadId}/0`, new Uint8Array(3000).fill(7));
    expect(answer).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    const view = (await (await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`)).json()) as { chunks: number[][] };
    expect(view.chunks).to.deep.equal([[0, 3000]]);
  });

  it("keeps Node's 100 Continue at once on the other routes", async () => {
    const conn = await rawConnection(service.url);
    conn.socket.write('GET /info HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    const received = await conn.closed;
    expect(received.startsWith(`${CONTINUE}HTTP/1.1 200 OK\r\n`)).to.equal(true);
  });
});
