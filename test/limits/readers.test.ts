import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { MAX_PIPELINED } from '../../src/http/listen.js';
import { signedItem, signers } from '../support/items.js';
import { startTestService, type TestService } from '../support/testService.js';
import { get, post } from './support.js';
import { eventually } from '../support/eventually.js';

/**
 * Clients reading items back that do not take the bytes (issue 34): a connection pipelining many
 * GETs and leaving without reading, a reader that stops, a reader that trickles. Each must cost the
 * service a bounded time, one buffer at most, and give back every file it opened.
 */

const MiB = 1024 * 1024;

/** the file descriptors this process holds (the service runs in it) */
const openFiles = () => readdirSync('/proc/self/fd').length;

/**
 * The open files once the service has no connection left (the test's own client sockets are files
 * of this process too): the count the files must come back to (or below: a client socket of an
 * earlier request may still be closing when it is taken).
 */
async function filesAtRest(service: TestService): Promise<number> {
  const connections = () => new Promise<number>((resolve, reject) => service.server!.getConnections((error, n) => (error ? reject(error) : resolve(n))));
  await eventually(async () => (await connections()) === 0, Boolean, 'no connection left');
  return openFiles();
}

/** each blob the real store opened for a read, and whether it was closed */
interface Opened {
  closed: boolean;
}

/** a service whose blob store notes each blob it opens; `readDelayMs`: each read of it takes that long more (a slow disk) */
async function watchedService(env: Record<string, string>, opened: Opened[], readDelayMs = 0): Promise<TestService> {
  return startTestService({ MAX_DATA_ITEM_SIZE: String(64 * MiB), FREE_UPLOAD_LIMIT_BYTES: String(64 * MiB), ...env }, async (dataDir) => {
    const store = await openFsBlobStore({ root: join(dataDir, 'blobs') });
    const open = store.open!.bind(store);
    store.open = async (key) => {
      const blob = await open(key);
      const watched = { closed: false };
      opened.push(watched);
      return {
        size: blob.size,
        read: async (into, position) => {
          if (readDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, readDelayMs));
          return blob.read(into, position);
        },
        close: async () => {
          watched.closed = true;
          await blob.close();
        },
      };
    };
    return { blobStore: store };
  });
}

async function uploadItem(service: TestService, payload: Uint8Array): Promise<string> {
  const item = await signedItem(signers.arweave(), payload);
  // not fetch: its connections stay open, and this test counts files
  expect((await post(service.url, '/tx', item.getRaw())).status).to.equal(200);
  return item.id;
}

/** a connection that sends `requests` at once and reads nothing (its socket paused: only what fits its buffer) */
async function silentConnection(url: string, requests: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.pause();
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(requests);
  return socket;
}

const getRequest = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

/** reads what arrives until the server closes; `take`: bytes taken at a time, every `everyMs` (else as fast as they come) */
async function readUntilClosed(socket: Socket, pace?: { take: number; everyMs: number }): Promise<Buffer> {
  const parts: Buffer[] = [];
  if (!pace) {
    socket.on('data', (part: Buffer) => parts.push(part));
    socket.resume();
  } else {
    const timer = setInterval(() => {
      const part = socket.read(Math.min(pace.take, socket.readableLength)) as Buffer | null;
      if (part) parts.push(part);
    }, pace.everyMs);
    socket.once('close', () => clearInterval(timer));
  }
  if (!socket.destroyed) await once(socket, 'close');
  return Buffer.concat(parts);
}

const statusesOf = (raw: Buffer) => [...raw.toString('latin1').matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

async function abortedReads(service: TestService): Promise<number> {
  const text = (await get(service.url, '/metrics')).body;
  return Number(/^http_requests_total\{method="GET",route="\/:id",status="aborted"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

describe('clients that do not take what they read back', function () {
  this.timeout(60_000);

  describe('an idle reader (BODY_IDLE_TIMEOUT_MS)', () => {
    const opened: Opened[] = [];
    let service: TestService;
    let id: string;
    before(async () => {
      service = await watchedService({ BODY_IDLE_TIMEOUT_MS: '300', MIN_BODY_BYTES_PER_SECOND: '0' }, opened);
      id = await uploadItem(service, randomBytes(8 * MiB));
    });
    after(() => service.close());

    it('one connection pipelining 40 GETs and leaving without reading: one blob opened, every file given back, every request logged', async () => {
      const filesBefore = await filesAtRest(service);
      const abortedBefore = await abortedReads(service);
      opened.length = 0;
      const socket = await silentConnection(service.url, getRequest(`/${id}`).repeat(40));
      await eventually(() => opened.length >= 1, Boolean, 'the first GET opened its blob');
      socket.destroy();
      await eventually(() => opened.every((blob) => blob.closed), Boolean, 'every blob opened was closed');
      await eventually(() => openFiles() <= filesBefore, Boolean, `the open files back to ${filesBefore}`);
      // only the connection's current answer reads its blob; those queued behind it never did
      expect(opened).to.have.length(1);
      // each request taken (the ones past MAX_PIPELINED are refused before the app) has its log line
      await eventually(async () => (await abortedReads(service)) === abortedBefore + MAX_PIPELINED, Boolean, `${MAX_PIPELINED} aborted reads counted`);
    });

    it('cuts a reader that takes nothing once the idle timeout passes, closes its blob and gives back its file', async () => {
      const filesBefore = await filesAtRest(service);
      opened.length = 0;
      // a kept-alive connection: an answer before this one must leave the connection timed
      const socket = await silentConnection(service.url, getRequest('/info') + getRequest(`/${id}`));
      await eventually(() => opened.length === 1 && opened[0]!.closed, Boolean, 'the blob closed without the client reading');
      // the service cut the connection: what it had sent ends there, short of the payload
      const received = await readUntilClosed(socket);
      expect(statusesOf(received)).to.deep.equal([200, 200]);
      expect(received.length).to.be.below(8 * MiB);
      await eventually(() => openFiles() <= filesBefore, Boolean, `the open files back to ${filesBefore}`);
    });

    it('answers the requests past MAX_PIPELINED on a connection with 429 and Retry-After, in their turn, then closes it', async () => {
      const socket = await silentConnection(service.url, getRequest('/info').repeat(MAX_PIPELINED + 4));
      const received = (await readUntilClosed(socket)).toString('latin1');
      expect(statusesOf(Buffer.from(received, 'latin1'))).to.deep.equal([...Array<number>(MAX_PIPELINED).fill(200), 429]);
      const refusal = received.slice(received.indexOf('HTTP/1.1 429'));
      expect(refusal).to.match(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
      expect(refusal).to.include('\r\nRetry-After: 1\r\n');
      expect(refusal).to.include('\r\nConnection: close\r\n');
      expect(refusal.endsWith('\r\n\r\nToo Many Requests')).to.equal(true);
    });
  });

  describe('a slow reader (MIN_BODY_BYTES_PER_SECOND after BODY_RATE_GRACE_MS, per BODY_RATE_WINDOW_MS)', () => {
    const opened: Opened[] = [];
    let service: TestService;
    const payload = randomBytes(4 * MiB);
    let id: string;
    before(async () => {
      service = await watchedService(
        // the idle timeout well past the test's wait: the trickling reader below is the rate's to cut
        { BODY_IDLE_TIMEOUT_MS: '30000', MIN_BODY_BYTES_PER_SECOND: String(64 * 1024), BODY_RATE_GRACE_MS: '200', BODY_RATE_WINDOW_MS: '500' },
        opened,
      );
      id = await uploadItem(service, payload);
    });
    after(() => service.close());

    it('serves the whole payload to a reader taking 64 KiB every 20 ms (above the minimum rate)', async () => {
      const socket = await silentConnection(service.url, `GET /${id} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      const received = await readUntilClosed(socket, { take: 64 * 1024, everyMs: 20 });
      expect(statusesOf(received)).to.deep.equal([200]);
      const body = received.subarray(received.indexOf('\r\n\r\n') + 4);
      expect(body.equals(payload)).to.equal(true);
    });

    it('cuts a reader taking 1 KiB every 100 ms (below it) and closes its blob', async () => {
      opened.length = 0;
      const filesBefore = await filesAtRest(service);
      const socket = await silentConnection(service.url, getRequest(`/${id}`));
      const parts: Buffer[] = [];
      const trickle = setInterval(() => parts.push((socket.read(Math.min(1024, socket.readableLength)) as Buffer | null) ?? Buffer.alloc(0)), 100);
      try {
        await eventually(() => opened.length === 1 && opened[0]!.closed, Boolean, 'its blob closed');
      } finally {
        clearInterval(trickle);
      }
      // cut: the rest it had sent, read at once, ends short of the payload
      const received = Buffer.concat([...parts, await readUntilClosed(socket)]);
      expect(statusesOf(received)).to.deep.equal([200]);
      expect(received.length).to.be.below(payload.length);
      await eventually(() => openFiles() <= filesBefore, Boolean, `the open files back to ${filesBefore}`);
    });
  });

  describe('a service slower than the minimum rate (its disk), a client that keeps up', () => {
    const opened: Opened[] = [];
    let service: TestService;
    const payload = randomBytes(MiB);
    let id: string;
    before(async () => {
      // each read of the blob takes 200 ms more: at most 64 KiB per 200 ms at first, below the 1 MiB/s asked of clients
      service = await watchedService(
        { BODY_IDLE_TIMEOUT_MS: '30000', MIN_BODY_BYTES_PER_SECOND: String(MiB), BODY_RATE_GRACE_MS: '100', BODY_RATE_WINDOW_MS: '300' },
        opened,
        200,
      );
      id = await uploadItem(service, payload);
    });
    after(() => service.close());

    it('serves the whole payload: the time the service spends reading is not counted against the client', async () => {
      const socket = await silentConnection(service.url, `GET /${id} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      const received = await readUntilClosed(socket);
      expect(statusesOf(received)).to.deep.equal([200]);
      expect(received.subarray(received.indexOf('\r\n\r\n') + 4).equals(payload)).to.equal(true);
    });
  });
});
