import { expect } from 'chai';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTransactionData } from '../../src/adapters/gateway/transactionData.js';
import { GatewayRequestError } from '../../src/ports/gatewayErrors.js';
import { createRetiredReads, verifiedSlice } from '../../src/queries/retiredBytes.js';
import { ServiceUnavailable } from '../../src/domain/errors.js';
import { createHash } from 'node:crypto';

const DATA = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
const TX = 'a'.repeat(43);

/** a gateway answering `GET /<tx>` as `answer` says */
async function gatewayAnswering(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function collect(bytes: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of bytes) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** ar.io: 206 with the range asked for (ar-io-node src/routes/data/handlers.ts) */
const arIo = (req: IncomingMessage, res: ServerResponse) => {
  const [, start, end] = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '')!.map(Number);
  res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${DATA.length}` }).end(DATA.subarray(start, end! + 1));
};
/** arlocal: 200 and the whole data, the Range header ignored (arlocal src/routes/data.ts dataRoute) */
const arlocal = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end(DATA);

describe("a transaction's data read from a gateway (retired items)", () => {
  for (const [name, answer] of [
    ['an ar.io gateway answering 206', arIo],
    ['arlocal answering 200 with the whole data', arlocal],
  ] as const) {
    it(`reads exactly the bytes asked for from ${name}`, async () => {
      const gateway = await gatewayAnswering(answer);
      try {
        const source = createTransactionData({ gatewayUrl: gateway.url, idleMs: 5_000 });
        const bytes = await collect(await source.read(TX, { start: 70_001, end: 150_000 }, new AbortController().signal));
        expect(bytes.equals(DATA.subarray(70_001, 150_001))).to.equal(true);
      } finally {
        await gateway.close();
      }
    });
  }

  it('refuses a 206 of another range than the one asked for, and data that ends short', async () => {
    const other = await gatewayAnswering((_req, res) => res.writeHead(206, { 'content-range': `bytes 0-9/${DATA.length}` }).end(DATA.subarray(0, 10)));
    const short = await gatewayAnswering((_req, res) => res.writeHead(200).end(DATA.subarray(0, 1000)));
    try {
      const signal = new AbortController().signal;
      const error = await createTransactionData({ gatewayUrl: other.url, idleMs: 5_000 })
        .read(TX, { start: 10, end: 19 }, signal)
        .catch((e: unknown) => e);
      expect(GatewayRequestError.is(error) && error.kind).to.equal('status');
      const cut = await collect(await createTransactionData({ gatewayUrl: short.url, idleMs: 5_000 }).read(TX, { start: 10, end: 5_000 }, signal)).catch(
        (e: unknown) => e,
      );
      expect(GatewayRequestError.is(cut) && cut.message).to.equal("the gateway's data ended at byte 1000, before byte 5001");
    } finally {
      await other.close();
      await short.close();
    }
  });

  it('holds back the last byte of a slice until the whole item hashes to its accepted digest', async () => {
    const item = DATA.subarray(0, 1000);
    const sha256 = createHash('sha256').update(item).digest('hex');
    async function* chunks(bytes: Buffer) {
      for (let i = 0; i < bytes.length; i += 100) yield bytes.subarray(i, i + 100);
    }
    const sent: Buffer[] = [];
    const good = verifiedSlice(chunks(item), { rawContentLength: 1000, sha256 }, { start: 5, end: 250 });
    for await (const piece of good) sent.push(Buffer.from(piece));
    expect(Buffer.concat(sent).equals(item.subarray(5, 251))).to.equal(true);
    const altered = Buffer.from(item);
    altered[900]! ^= 1;
    const got: Buffer[] = [];
    const error = await (async () => {
      for await (const piece of verifiedSlice(chunks(altered), { rawContentLength: 1000, sha256 }, { start: 5, end: 250 })) got.push(Buffer.from(piece));
    })().catch((e: unknown) => e);
    expect((error as Error).message).to.match(/^the gateway's bytes have sha256 [0-9a-f]{64}, the item was accepted with /);
    expect(Buffer.concat(got).equals(item.subarray(5, 250))).to.equal(true);
  });

  it('takes RETIRED_READS_MAX reads at once; the next is 503 with a Retry-After until one ends', async () => {
    const retired = { bundleId: TX, startOffsetInRootBundle: 0, rawContentLength: 10, sha256: '0'.repeat(64), retiredAt: 1 };
    // a gateway that sends one byte and then nothing: the read stays under way
    const source = {
      read: async () =>
        (async function* () {
          yield new Uint8Array(1);
          await new Promise(() => {});
        })(),
    };
    const reads = createRetiredReads({ readStore: { get: async () => undefined }, source, maxReads: 1 });
    const first = await reads.read(retired, { start: 0, end: 9 });
    const refused = await reads.read(retired, { start: 0, end: 9 }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ServiceUnavailable);
    expect((refused as ServiceUnavailable).retryAfterSeconds).to.equal(2);
    first.destroy();
    await new Promise((resolve) => first.once('close', resolve));
    const again = await reads.read(retired, { start: 0, end: 9 });
    again.destroy();
  });
});
