import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getInto, readFileInto } from '../../scripts/bench/lib/bufferedReads.js';

/** the read-back benchmark's readers count exactly the bytes the baseline counts, or fail */
describe('read-back benchmark readers (one reused buffer)', () => {
  let server: Server | undefined;
  const serve = async (handler: RequestListener): Promise<string> => {
    server = createServer(handler);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/some/path?x=1`;
  };
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('counts a body of many buffers to its Content-Length, and the status', async () => {
    const body = randomBytes(3 * 65536 + 11);
    let asked = '';
    const url = await serve((req, res) => {
      asked = req.url!;
      res.writeHead(206, { 'content-length': body.length });
      // in pieces, so the head and the body arrive in separate reads
      res.write(body.subarray(0, 10));
      setImmediate(() => res.end(body.subarray(10)));
    });
    expect(await getInto(url, Buffer.alloc(4096))).to.deep.equal({ status: 206, bytes: body.length });
    expect(asked).to.equal('/some/path?x=1');
  });

  it('counts an empty body', async () => {
    const url = await serve((_req, res) => res.writeHead(404, { 'content-length': 0 }).end());
    expect(await getInto(url, Buffer.alloc(4096))).to.deep.equal({ status: 404, bytes: 0 });
  });

  it('rejects a body cut short of its Content-Length', async () => {
    const url = await serve((req, res) => {
      res.writeHead(200, { 'content-length': 100_000 });
      res.write(randomBytes(1000), () => req.socket.destroy());
    });
    const error = await getInto(url, Buffer.alloc(4096)).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/^the connection closed after \d+ of 100000 body bytes$/);
  });

  it('rejects a body without a Content-Length (chunked)', async () => {
    const url = await serve((_req, res) => {
      res.write('abc');
      res.end('def');
    });
    const error = await getInto(url, Buffer.alloc(4096)).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.equal('no status or Content-Length in "HTTP/1.1 200 OK"');
  });

  it('reads a file from a byte to its end into the buffer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'buffered-reads-'));
    try {
      const file = join(dir, 'f');
      await writeFile(file, randomBytes(10_000));
      expect(await readFileInto(file, 1234, Buffer.alloc(1000))).to.equal(10_000 - 1234);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
