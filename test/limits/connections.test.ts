import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { OTHER_CLIENT, eventually, post, rawConnection, trickle, type RawConnection } from './support.js';

const contractAnswer = (status: number, message: string) =>
  `HTTP/1.1 ${status} ${message}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${message.length}\r\nConnection: close\r\n\r\n${message}`;

const openConnections = (service: TestService) =>
  new Promise<number>((resolve, reject) => service.server!.getConnections((error, count) => (error ? reject(error) : resolve(count))));

describe('connection limits (slowloris, oversized headers)', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ HEADERS_TIMEOUT_MS: '1500', MAX_CONNECTIONS_PER_CLIENT: '300' });
  });
  after(() => service.close());

  it('answers 408 Request Timeout in the contract style to headers that never finish, and closes the connection', async () => {
    const conn = await rawConnection(service.url);
    trickle(conn.socket, Buffer.from(`POST /tx HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(10_000)}`), 50);
    expect(await conn.closed).to.equal(contractAnswer(408, 'Request Timeout'));
  });

  it('keeps serving others while 500 slow connections are open: past 300 from one address they are closed at once', async () => {
    const slow: RawConnection[] = [];
    for (let i = 0; i < 500; i++) slow.push(await rawConnection(service.url));
    let cut = 0;
    for (const conn of slow) void conn.closed.then((data) => (data === '' ? cut++ : undefined));
    await eventually(() => cut === 200, '200 connections over the cap closed');
    for (const conn of slow) if (!conn.socket.destroyed) trickle(conn.socket, Buffer.from(`POST /tx HTTP/1.1\r\nX-Slow: ${'a'.repeat(1000)}`), 100);

    // the 300 left keep their headers coming; another client still uploads
    const item = await signedItem(signers.ethereum(), 'uploaded beside 500 slow connections');
    const answer = await post(service.url, '/tx', item.getRaw(), { localAddress: OTHER_CLIENT });
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.body).id).to.equal(item.id);

    const answers = await Promise.all(slow.map((conn) => conn.closed));
    expect(answers.filter((a) => a === '')).to.have.length(200);
    expect(answers.filter((a) => a === contractAnswer(408, 'Request Timeout'))).to.have.length(300);
    // every slow connection is gone: the address may connect again
    await eventually(async () => (await openConnections(service)) === 0, 'the server saw every connection close');
    const again = await post(service.url, '/tx', item.getRaw());
    expect(again.status).to.equal(202);
    expect(again.statusText).to.equal('Data Item Exists');
  });

  it('answers 431 Request Header Fields Too Large in the contract style to 10 MB of headers, and stays up', async () => {
    const conn = await rawConnection(service.url);
    conn.socket.write('GET /info HTTP/1.1\r\nHost: localhost\r\n');
    const line = `X-Filler: ${'b'.repeat(1000)}\r\n`;
    for (let sent = 0; sent < 10_000_000 && !conn.socket.destroyed && conn.received() === ''; sent += line.length) {
      if (!conn.socket.write(line)) await new Promise((r) => setTimeout(r, 1));
    }
    expect(await conn.closed).to.equal(contractAnswer(431, 'Request Header Fields Too Large'));
    const info = await fetch(`${service.url}/info`);
    expect(info.status).to.equal(200);
  });

  it('answers 400 Bad Request in the contract style to bytes that are not HTTP', async () => {
    const conn = await rawConnection(service.url);
    conn.socket.write('NOT HTTP AT ALL\r\n\r\n');
    expect(await conn.closed).to.equal(contractAnswer(400, 'Bad Request'));
  });
});

describe('connections open at once (MAX_CONNECTIONS)', function () {
  this.timeout(30_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ MAX_CONNECTIONS: '5' });
  });
  after(() => service.close());

  it('closes a connection past the limit at once, and takes new ones once others closed', async () => {
    const open = await Promise.all(Array.from({ length: 5 }, () => rawConnection(service.url)));
    await eventually(async () => (await openConnections(service)) === 5, 'five connections accepted');
    const extra = await rawConnection(service.url, OTHER_CLIENT);
    expect(await extra.closed).to.equal('');
    for (const conn of open) conn.socket.destroy();
    await eventually(async () => (await openConnections(service)) === 0, 'the server saw them close');
    expect((await fetch(`${service.url}/info`)).status).to.equal(200);
  });
});
