import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { watchedBlobStore, type WatchedBlobStore } from '../support/watchedBlobStore.js';
import { openBlobStoreFromConfig } from '../../src/adapters/storesFromConfig.js';
import { OTHER_CLIENT, get, post, rawConnection, trickle, uploadHead, type RawConnection } from './support.js';
import { eventually } from '../support/eventually.js';

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
    await eventually(() => cut === 200, Boolean, '200 connections over the cap closed');
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
    await eventually(async () => (await openConnections(service)) === 0, Boolean, 'the server saw every connection close');
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

describe('connections open at once (MAX_CONNECTIONS, MAX_CONNECTIONS_PER_NETWORK)', function () {
  this.timeout(60_000);
  let service: TestService;
  let held: RawConnection[] = [];
  let blobs: WatchedBlobStore;
  before(async () => {
    service = await startTestService(
      {
        MAX_CONNECTIONS: '40',
        MAX_CONNECTIONS_PER_CLIENT: '4',
        MAX_CONNECTIONS_PER_NETWORK: '12',
        // nothing but the caps closes an idle connection during these tests
        FIRST_REQUEST_TIMEOUT_MS: '600000',
        HEADERS_TIMEOUT_MS: '600000',
      },
      async (dataDir) => {
        blobs = watchedBlobStore(await openBlobStoreFromConfig({ blobStore: 'fs', readStore: 'sqlite', dataDir }));
        return { blobStore: blobs.store };
      },
    );
  });
  afterEach(async () => {
    for (const conn of held) conn.socket.destroy();
    held = [];
    await eventually(async () => (await openConnections(service)) === 0, Boolean, 'every connection closed');
  });
  after(() => service.close());

  /** `count` raw connections from `address`, each accepted by the server before the next opens */
  async function hold(address: string, count: number): Promise<RawConnection[]> {
    const opened: RawConnection[] = [];
    for (let i = 0; i < count; i++) {
      const before = await openConnections(service);
      const conn = await rawConnection(service.url, address);
      opened.push(conn);
      held.push(conn);
      await eventually(async () => (await openConnections(service)) === before + 1, Boolean, `connection ${i} from ${address} accepted`);
    }
    return opened;
  }

  it('answers a bystander while 17 addresses hold every connection idle: the oldest idle one of the largest network makes room', async () => {
    // 3 addresses of 127.0.0.0/24 up to its network cap (12), 14 addresses of other /24s 2 each: 40, the cap
    const largest: RawConnection[] = [];
    for (const last of [10, 11, 12]) largest.push(...(await hold(`127.0.0.${last}`, 4)));
    const others: RawConnection[] = [];
    for (let net = 1; net <= 14; net++) others.push(...(await hold(`127.0.${net}.1`, 2)));
    expect(await openConnections(service)).to.equal(40);

    const answer = await get(service.url, '/info', { localAddress: '127.0.99.1' });
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.body)).to.have.property('version');

    await eventually(() => largest[0]!.socket.destroyed, Boolean, 'the oldest idle connection of 127.0.0.0/24 closed');
    expect(await largest[0]!.closed).to.equal('');
    expect([...largest, ...others].filter((conn) => conn.socket.destroyed)).to.have.length(1);
  });

  it('closes a connection past the cap of its network at once, while other networks still connect', async () => {
    for (const last of [20, 21, 22]) await hold(`127.0.0.${last}`, 4);
    const past = await rawConnection(service.url, '127.0.0.23');
    held.push(past);
    expect(await past.closed).to.equal('');
    await hold('127.0.1.23', 1);
    expect(await openConnections(service)).to.equal(13);
  });

  it('closes a new connection at once when every connection is in the middle of a request', async () => {
    // 40 uploads holding their bodies back after the first 100 bytes
    const item = (await signedItem(signers.ethereum(), new Uint8Array(4000))).getRaw();
    for (let net = 1; net <= 10; net++) {
      for (const conn of await hold(`127.0.${net}.2`, 4)) {
        conn.socket.write(uploadHead('/tx', { 'Content-Length': String(item.length) }));
        conn.socket.write(item.subarray(0, 100));
      }
    }
    // (not /metrics: a request for it would be a 41st connection, and closed)
    await eventually(() => blobs.receiving() === 40, Boolean, 'the 40 uploads are being received');
    const refused = await rawConnection(service.url, '127.0.99.2');
    expect(await refused.closed).to.equal('');
    expect(held.filter((conn) => conn.socket.destroyed)).to.have.length(0);
  });
});

describe('the first request of a connection (FIRST_REQUEST_TIMEOUT_MS)', function () {
  this.timeout(30_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ FIRST_REQUEST_TIMEOUT_MS: '500', HEADERS_TIMEOUT_MS: '60000' });
  });
  after(() => service.close());

  it('answers 408 Request Timeout in the contract style to a connection that sends no request in time, and closes it', async () => {
    const idle = await rawConnection(service.url);
    expect(await idle.closed).to.equal(contractAnswer(408, 'Request Timeout'));
    const slow = await rawConnection(service.url);
    trickle(slow.socket, Buffer.from(`GET /info HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(10_000)}`), 50);
    expect(await slow.closed).to.equal(contractAnswer(408, 'Request Timeout'));
  });

  it('gives the later requests of a kept-alive connection the headers timeout, not the first request deadline', async () => {
    const kept = await rawConnection(service.url);
    kept.socket.write('GET /info HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await eventually(() => kept.received().includes('"version"'), Boolean, 'the first answer');
    // the next request's headers come slowly, one byte every 50 ms
    kept.socket.write('GET /info HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    const slowly = setInterval(() => kept.socket.write('a'), 50);
    try {
      // a connection opened after that, which sends nothing, is past its deadline first
      const idle = await rawConnection(service.url);
      expect(await idle.closed).to.equal(contractAnswer(408, 'Request Timeout'));
      expect(kept.socket.destroyed).to.equal(false);
    } finally {
      clearInterval(slowly);
    }
    kept.socket.write('\r\n\r\n');
    await eventually(() => kept.received().split('HTTP/1.1 200 OK').length === 3, Boolean, 'the second answer');
    kept.socket.destroy();
  });
});
