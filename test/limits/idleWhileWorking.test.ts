import { expect } from 'chai';
import express from 'express';
import { DEFAULT_SERVER_LIMITS, listen } from '../../src/http/listen.js';
import { post, rawConnection, uploadHead } from './support.js';

/**
 * The idle timeout (BODY_IDLE_TIMEOUT_MS) cuts a client that stops sending; the service's own work
 * once the body is in (a commit waiting on the disk, a finalize assembling an item) is no idling.
 */
describe('idle timeout: the client idling, not the service working', function () {
  this.timeout(30_000);
  const IDLE_MS = 100;
  let served: Awaited<ReturnType<typeof listen>>;

  before(async () => {
    const app = express();
    app.post('/work', async (req, res) => {
      try {
        for await (const _ of req) void _;
      } catch {
        return; // the body was cut
      }
      // the service works four idle timeouts long after the body is in, sending nothing meanwhile
      await new Promise((resolve) => setTimeout(resolve, 4 * IDLE_MS));
      res.status(200).send('done');
    });
    served = await listen(app, 0, '127.0.0.1', { ...DEFAULT_SERVER_LIMITS, idleTimeoutMs: IDLE_MS });
  });
  after(() => {
    served.server.closeAllConnections();
    served.server.close();
  });

  it('answers a request whose handling outlasts the idle timeout once its body is in', async () => {
    const answer = await post(served.url, '/work', new Uint8Array(5000));
    expect(answer).to.include({ status: 200, body: 'done' });
  });

  it('still cuts a body that stops coming', async () => {
    const conn = await rawConnection(served.url);
    conn.socket.write(uploadHead('/work', { 'Content-Length': '5000' }));
    conn.socket.write(new Uint8Array(200));
    expect(await conn.closed).to.equal('');
  });

  it('cuts a kept-alive connection idle after its answer', async () => {
    const conn = await rawConnection(served.url);
    conn.socket.write(uploadHead('/work', { 'Content-Length': '10' }));
    conn.socket.write(new Uint8Array(10));
    expect(await conn.closed).to.match(/^HTTP\/1\.1 200/);
  });
});
