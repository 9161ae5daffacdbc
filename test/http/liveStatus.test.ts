import { randomBytes, randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { eventually } from '../support/eventually.js';
import { otherSpellings } from '../support/idSpellings.js';
import { openSse, type SseMessage, type SseStream } from '../support/sse.js';
import { toNewEvent, type DomainEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { bundleStream } from '../../src/domain/bundle/ids.js';
import { openSqliteEventStoreWithConnection } from '../support/sqliteEventStoreConnection.js';
import { withAppend } from '../support/appendWrapped.js';

/** CONTRACT.md section 10: `GET /tx/:id/events` and the upload's, over real HTTP with a real SSE read. */
describe('live status streams (server-sent events)', function () {
  this.timeout(120_000);
  let service: TestService;
  const streams: SseStream[] = [];
  const open = async (path: string, lastEventId?: string) => {
    const s = await openSse(`${service.url}${path}`, lastEventId);
    streams.push(s);
    return s;
  };
  before(async () => {
    service = await startTestService({ LIVE_STATUS_STREAMS_PER_CLIENT: '3', LIVE_STATUS_BUFFER_BYTES: '262144' });
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) await s.close();
  });
  after(() => service?.close());

  const upload = async () => {
    const item = await signedItem(signers.arweave(), randomBytes(300), [{ name: 'Content-Type', value: 'text/plain' }]);
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status).to.equal(200);
    return item.id as DataItemId;
  };
  const status = async (id: string) => (await fetch(`${service.url}/tx/${id}/status`)).json();
  const append = (stream: ReturnType<typeof bundleStream>, events: DomainEvent[]) =>
    service.eventStore.append(
      stream,
      events.map((e) => toNewEvent(e, newEventId(), { correlationId: 'live-status-spec' })),
      'any',
    );
  /** a bundle plan of the item alone, as the bundler records it */
  const plan = async (id: string) => {
    const planId = randomUUID();
    await append(bundleStream(planId), [
      { type: 'BundlePlanned', data: { planId, timestamp: Date.now(), items: [{ id, size: 1500, offset: 96 }], headerSize: 96, totalSize: 1596 } },
    ]);
    return planId;
  };
  const posted = (planId: string): DomainEvent => ({ type: 'BundlePosted', data: { planId, timestamp: Date.now(), txId: 'T'.repeat(43) } });
  const dataOf = (m: SseMessage | undefined) => JSON.parse(m!.data) as Record<string, unknown> & { change: Record<string, unknown> };

  it('sends the current state first, then each change as it is recorded, and ends after failed', async () => {
    const id = await upload();
    const events = await open(`/tx/${id}/events`);
    expect(events.status).to.equal(200);
    expect(events.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
    const first = await events.next();
    expect(first).to.include({ event: 'accepted' });
    expect(first!.id).to.match(/^\d+$/);
    expect(dataOf(first)).to.deep.equal({ id, ...(await status(id)), change: { event: 'accepted', current: true } });

    const planId = await plan(id);
    const bundled = await events.next();
    expect(bundled!.event).to.equal('bundled');
    expect(BigInt(bundled!.id!) > BigInt(first!.id!)).to.equal(true);
    expect(dataOf(bundled)).to.deep.include({ status: 'CONFIRMED', info: 'pending', startOffsetInRootBundle: 96 });

    await append(bundleStream(planId), [posted(planId)]);
    const post = await events.next();
    expect(post!.event).to.equal('posted');
    expect(dataOf(post).change).to.deep.include({ event: 'posted', bundleId: 'T'.repeat(43) });

    await append(bundleStream(planId), [
      { type: 'BundleDropped', data: { planId, timestamp: Date.now(), itemIds: [id], reason: 'not mined in time', countsAsAttempt: true } },
    ]);
    const dropped = await events.next();
    expect(dropped!.event).to.equal('dropped');
    expect(dataOf(dropped)).to.deep.include({ status: 'CONFIRMED', info: 'new' });
    expect(dataOf(dropped).change).to.deep.include({ event: 'dropped', reason: 'not mined in time' });

    await append(dataItemStream(id), [{ type: 'DataItemFailed', data: { id, attempts: 10, reason: '10 bundles dropped', timestamp: Date.now() } }]);
    const failed = await events.next();
    expect(failed!.event).to.equal('failed');
    expect(await events.next(), 'the stream ends after a final state').to.equal(undefined);
    expect(dataOf(failed)).to.deep.equal({
      id,
      ...(await status(id)),
      change: { event: 'failed', at: dataOf(failed).change.at, reason: '10 bundles dropped' },
    });
    expect(await status(id)).to.include({ status: 'FAILED', info: 'failed' });

    // connected after the end, a client gets the final state and the end at once
    expect((await (await open(`/v1/tx/${id}/events`)).rest()).map((m) => m.event)).to.deep.equal(['failed']);
  });

  it('resumes after Last-Event-ID with only the later changes', async () => {
    const id = await upload();
    const a = await open(`/tx/${id}/events`);
    const accepted = await a.next();
    const planId = await plan(id);
    const bundled = await a.next();
    expect(bundled!.event).to.equal('bundled');
    await a.close();

    // nothing happened since its last id: nothing is sent until the next change
    const b = await open(`/tx/${id}/events`, bundled!.id);
    await append(bundleStream(planId), [posted(planId)]);
    const next = await b.next();
    expect(next!.event).to.equal('posted');
    expect(BigInt(next!.id!) > BigInt(bundled!.id!)).to.equal(true);

    // from an older id: the changes since, in one message with the current state, then the live ones
    const c = await open(`/tx/${id}/events`, accepted!.id);
    const caughtUp = await c.next();
    expect(caughtUp!.event).to.equal('bundled');
    expect(dataOf(caughtUp)).to.deep.include({ info: 'pending', change: { event: 'bundled', current: true } });
    await append(bundleStream(planId), [{ type: 'BundleSeeded', data: { planId, timestamp: Date.now(), txId: 'T'.repeat(43) } }]);
    expect((await c.next())!.event).to.equal('seeded');
    expect((await b.next())!.event).to.equal('seeded');
  });

  it('cuts a client that does not read its stream, while another keeps receiving every change', async () => {
    const id = await upload();
    const planId = await plan(id);
    const reader = await open(`/tx/${id}/events`);
    expect((await reader.next())!.event).to.equal('bundled');
    const stalled = await rawStream(new URL(service.url), `/tx/${id}/events`);
    await eventually(() => stalled.received().includes('event: bundled'), Boolean, "the stalled client's first message");

    // more than the loopback's socket buffers hold (about 4 MB here), so the service holds the rest;
    // appended a few hundred at a time, as the reader takes them: the reader (in this process) cannot
    // read while the service writes, so a larger burst would wait in the service for it too
    const count = 20_000;
    const seen: SseMessage[] = [];
    for (let sent = 0; sent < count; sent += 400) {
      await append(
        bundleStream(planId),
        Array.from({ length: 400 }, () => posted(planId)),
      );
      while (seen.length < sent + 400) seen.push((await reader.next())!);
    }
    expect(seen.map((m) => m?.event)).to.deep.equal(Array(count).fill('posted'));
    const ids = seen.map((m) => BigInt(m.id!));
    expect(
      ids.every((p, i) => i === 0 || p > ids[i - 1]!),
      'ids ascending',
    ).to.equal(true);

    // the stalled client now reads what its socket held: it was cut, short of the changes
    expect(await stalled.readOn('event: posted', count)).to.equal('closed');
    expect(stalled.count('event: posted')).to.be.lessThan(count);
    stalled.socket.destroy();
  });

  it('answers 429 with Retry-After past the streams one client may hold, and takes one again once one ends', async () => {
    const id = await upload();
    const held = [await open(`/tx/${id}/events`), await open(`/tx/${id}/events`), await open(`/tx/${id}/events`)];
    for (const s of held) expect(s.status).to.equal(200);
    const refused = await open(`/tx/${id}/events`);
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
    expect(await refused.text()).to.equal('Too Many Requests');
    await held[0]!.close();
    const again = await eventually(
      async () => {
        const s = await open(`/tx/${id}/events`);
        if (s.status !== 200) await s.close();
        return s;
      },
      (s) => s.status === 200,
      'a stream again once one closed',
    );
    expect((await again.next())!.event).to.equal('accepted');
  });

  it("answers TX doesn't exist for an unknown id, and the canonical id's stream for another spelling", async () => {
    const unknown = await open(`/tx/${Buffer.alloc(32, 9).toString('base64url')}/events`);
    expect([unknown.status, unknown.headers.get('content-type'), await unknown.text()]).to.deep.equal([404, 'text/plain; charset=utf-8', "TX doesn't exist"]);
    const id = await upload();
    const spelled = await open(`/tx/${otherSpellings(id)[1]!}/events`);
    expect(dataOf(await spelled.next())).to.include({ id });
    // HEAD: the stream's headers, and an end at once
    const head = await fetch(`${service.url}/tx/${id}/events`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).to.deep.equal([200, 'text/event-stream; charset=utf-8', '']);
  });

  it("streams a multi-part upload's status from assembling to finalized, and ends", async () => {
    const item = await signedItem(signers.arweave(), randomBytes(9000));
    const uploadId = await createUpload(service.url);
    const events = await open(`/chunks/arweave/${uploadId}/events`);
    const first = await events.next();
    expect(first!.event).to.equal('assembling');
    expect(dataOf(first)).to.deep.include({ status: 'ASSEMBLING', change: { event: 'assembling', current: true } });
    await postChunks(service.url, uploadId, item.getRaw(), 3000);
    const finalized = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
    expect(finalized.status).to.equal(200);
    const { data: receipt } = (await finalized.json()) as { data: unknown };
    const rest = await events.rest();
    expect(rest.map((m) => m.event)).to.deep.equal(['validating', 'finalizing', 'finalized']);
    const statusAnswer = await (await fetch(`${service.url}/chunks/arweave/${uploadId}/status`)).json();
    expect(dataOf(rest[2])).to.deep.equal({ ...statusAnswer, change: { event: 'finalized', at: dataOf(rest[2]).change.at } });
    expect(dataOf(rest[2]).receipt).to.deep.equal(receipt);

    const unknown = await open(`/v1/chunks/arweave/${randomBytes(16).toString('base64url')}/events`);
    expect([unknown.status, await unknown.text()]).to.deep.equal([404, 'Multi-part upload not found']);
  });
});

describe('live status streams of one process', function () {
  this.timeout(60_000);
  let service: TestService;
  /** subscriptions to `$all` open now (the projector's, and the streams' feed) */
  let open = 0;
  before(async () => {
    service = await startTestService({}, async (dataDir) => {
      const { store } = openSqliteEventStoreWithConnection({ path: join(dataDir, 'events.db') });
      return {
        eventStore: {
          ...withAppend(store, (stream, events, expected) => store.append(stream, events, expected)),
          subscribeToAll(options) {
            const inner = store.subscribeToAll(options);
            open += 1;
            let closed = false;
            return {
              [Symbol.asyncIterator]: () => inner[Symbol.asyncIterator](),
              async close() {
                if (!closed) open -= 1;
                closed = true;
                await inner.close();
              },
            };
          },
        },
      };
    });
  });
  after(() => service?.close());

  it('share one subscription to the event store, closed once the last stream ends', async () => {
    const before = open;
    const streams: SseStream[] = [];
    for (let n = 0; n < 6; n++) {
      const item = await signedItem(signers.arweave(), randomBytes(50));
      expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
      const s = await openSse(`${service.url}/tx/${item.id}/events`);
      expect((await s.next())!.event).to.equal('accepted');
      streams.push(s);
    }
    expect(open - before).to.equal(1);
    for (const s of streams) await s.close();
    await eventually(
      () => open,
      (n) => n === before,
      'the feed closed with its last stream',
    );
  });
});

describe('live status streams in time', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ LIVE_STATUS_HEARTBEAT_MS: '50', LIVE_STATUS_MAX_LIFETIME_MS: '1500' });
  });
  after(() => service?.close());

  it('sends heartbeat comments, and ends at its lifetime without a final state', async () => {
    const item = await signedItem(signers.arweave(), randomBytes(100));
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    const events = await openSse(`${service.url}/tx/${item.id}/events`);
    expect((await events.rest()).map((m) => m.event)).to.deep.equal(['accepted']);
    expect(events.comments.length).to.be.greaterThan(0);
    expect(new Set(events.comments)).to.deep.equal(new Set(['heartbeat']));
  });
});

describe('live status streams at shutdown', function () {
  this.timeout(30_000);

  it('are ended first, so an open stream holds no grace period', async () => {
    // a grace period longer than this test may take: a stream still open at shutdown would hold it
    const service = await startTestService({ SHUTDOWN_GRACE_MS: '600000' });
    const item = await signedItem(signers.arweave(), randomBytes(100));
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    const events = await openSse(`${service.url}/tx/${item.id}/events`);
    expect((await events.next())!.event).to.equal('accepted');
    const ended = events.rest();
    await service.close();
    expect(await ended).to.deep.equal([]);
  });
});

/** A client that sends its request and reads nothing until told to: its socket buffers fill, then the service's. */
async function rawStream(base: URL, path: string) {
  const socket: Socket = connect(Number(base.port), base.hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${base.host}\r\nAccept: text/event-stream\r\n\r\n`);
  let text = '';
  const count = (needle: string) => text.split(needle).length - 1;
  // up to the first message; then paused: nothing more is read from the kernel
  const first = (chunk: Buffer) => {
    text += chunk.toString('latin1');
    if (!text.includes('event: ')) return;
    socket.off('data', first);
    socket.pause();
  };
  socket.on('data', first);
  return {
    socket,
    received: () => text,
    count,
    /** reads again: `closed` when the service ends the connection first, `all` when `needle` came `times` */
    readOn: (needle: string, times: number) =>
      new Promise<'closed' | 'all'>((resolve) => {
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          if (count(needle) >= times) resolve('all');
        });
        socket.once('close', () => resolve('closed'));
        socket.resume();
      }),
  };
}
