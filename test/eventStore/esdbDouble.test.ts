/**
 * The EventStoreDB test double against the real client (`@eventstore/db-client` 6.2.1): each rule
 * the double copies from the server (see the server paths in test/support/esdbTestDouble*.ts) has a
 * test here that fails without it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  binaryEvent,
  DeadlineExceededError,
  EventStoreDBClient,
  jsonEvent,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  START,
  streamNameFilter,
  TimeoutError,
  WrongExpectedVersionError,
  type Position,
} from '@eventstore/db-client';
import { createEsdbEventStore } from '../../src/adapters/esdb/eventStore.js';
import { EventStoreUnavailable, type RecordedEvent } from '../../src/ports/eventStore.js';
import { eventually } from '../support/eventually.js';
import { startEsdbTestDouble, type EsdbTestDouble, type EsdbTestDoubleOptions } from '../support/esdbTestDouble.js';
import { newEvent, nextEvents, testStreams } from './contractSupport.js';

const bytes = (n: number) => new Uint8Array(n).fill(7);
const event = (type: string, size: number, id: string = randomUUID()) => binaryEvent({ id, type, data: bytes(size) });

describe('EventStoreDB test double (real client)', () => {
  const nodes: EsdbTestDouble[] = [];
  const clients: EventStoreDBClient[] = [];
  const start = async (options: EsdbTestDoubleOptions = {}) => {
    const node = await startEsdbTestDouble(options);
    nodes.push(node);
    return node;
  };
  const connect = (node: EsdbTestDouble) => {
    const client = EventStoreDBClient.connectionString(node.connectionString);
    clients.push(client);
    return client;
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
  });

  describe('BatchAppend (Streams.BatchAppend.cs, ServerFeatures.cs)', () => {
    it('is advertised, so appendToStream goes through it and not through Append', async () => {
      const node = await start();
      const client = connect(node);
      await client.appendToStream('s', event('T', 1), { expectedRevision: NO_STREAM });
      expect({ batchAppend: node.calls.batchAppend, append: node.calls.append }).to.deep.equal({
        batchAppend: 1,
        append: undefined,
      });
    });

    it('answers the revision and the position of the last event, commit and prepare alike', async () => {
      const node = await start();
      const client = connect(node);
      const result = await client.appendToStream('s', [event('T', 1), event('T', 2)], { expectedRevision: NO_STREAM });
      const last = node.log.stream('s')![1]!.position;
      expect(result).to.deep.equal({ success: true, nextExpectedRevision: 1n, position: { commit: last, prepare: last } });
    });

    it('answers a wrong expected version with the current and the expected revisions', async () => {
      const node = await start();
      const client = connect(node);
      await client.appendToStream('s', event('T', 1), { expectedRevision: NO_STREAM });
      const error = await client.appendToStream('s', event('T', 1), { expectedRevision: 5n }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(WrongExpectedVersionError);
      const wrong = error as WrongExpectedVersionError;
      expect([wrong.streamName, wrong.expectedVersion, wrong.actualVersion]).to.deep.equal(['s', 5n, 0n]);
      const noStream = await client.appendToStream('s', event('T', 1), { expectedRevision: NO_STREAM }).catch((e) => e);
      expect([noStream.expectedVersion, noStream.actualVersion]).to.deep.equal(['no_stream', 0n]);
    });
  });

  describe('MaxAppendSize (Event.SizeOnDisk, ClusterVNodeOptions.MaxAppendSize)', () => {
    // type 'T' weighs 2 bytes: 1 UTF-16 unit, counted twice
    for (const batchAppend of [true, false]) {
      const through = batchAppend ? 'BatchAppend' : 'Append';
      it(`accepts data + metadata + 2 × type length of exactly 1 MiB, refuses one byte more (${through})`, async () => {
        const node = await start({ batchAppend });
        const client = connect(node);
        await client.appendToStream('fits', [event('T', 1_048_576 - 2 - 100), event('T', 98)]);
        const error = await client.appendToStream('too-big', [event('T', 1_048_576 - 2 - 100), event('T', 99)]).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(MaxAppendSizeExceededError);
        expect((error as MaxAppendSizeExceededError).maxAppendSize).to.equal(1_048_576);
        expect([node.log.stream('fits')?.length, node.log.stream('too-big')]).to.deep.equal([2, undefined]);
        // one BatchAppend stream carries every append of a client; Append is one call per append
        expect(node.calls[batchAppend ? 'batchAppend' : 'append']).to.equal(batchAppend ? 1 : 2);
      });
    }

    it('counts metadata, and is configurable up to 16 MiB', async () => {
      const node = await start({ maxAppendSize: 3_000_000 });
      const client = connect(node);
      await client.appendToStream('big', event('T', 2_999_998));
      const withMetadata = binaryEvent({ type: 'T', data: bytes(2_999_998), metadata: bytes(1) });
      const error = await client.appendToStream('big', withMetadata).catch((e: unknown) => e);
      expect((error as MaxAppendSizeExceededError).maxAppendSize).to.equal(3_000_000);
      expect(node.log.stream('big')!.length).to.equal(1);
      await startEsdbTestDouble({ maxAppendSize: 16 * 1024 * 1024 + 1 }).then(
        () => expect.fail('a MaxAppendSize over 16 MiB was accepted'),
        (e: Error) => expect(e.message).to.equal('MaxAppendSize may not exceed 16777216'),
      );
    });
  });

  describe('$all positions (PrepareLogRecord.SizeOnDisk, AllReader)', () => {
    it('are transaction-file offsets: each event moves the next one by its record size', async () => {
      const node = await start();
      const client = connect(node);
      await client.appendToStream('pos-a', [event('T', 10), event('T', 1000)]);
      await client.appendToStream('pos-a', event('T', 0));
      const positions: Position[] = [];
      for await (const resolved of client.readAll({ fromPosition: START })) {
        if (resolved.event?.streamId === 'pos-a') positions.push(resolved.event.position);
      }
      const first = positions[0]!.commit;
      // 88 fixed bytes + stream 'pos-a' (1 + 5) + type 'T' (1 + 1) + data
      expect(positions.map((p) => p.commit - first)).to.deep.equal([0n, 106n, 106n + 1096n]);
      expect(positions.every((p) => p.commit === p.prepare)).to.equal(true);
    });

    it("are 0, 1, 2 ... with `positions: 'counts'`", async () => {
      const node = await start({ positions: 'counts' });
      const client = connect(node);
      const appended = await client.appendToStream('pos-a', [event('T', 10), event('T', 1000)]);
      expect(appended.position).to.deep.equal({ commit: 2n, prepare: 2n });
    });
  });

  describe('idempotent appends (IndexWriter.CheckCommit)', () => {
    it('answer a retry of the same ids at the same expected revision with the first answer, writing nothing', async () => {
      const node = await start();
      const client = connect(node);
      const ids = [randomUUID(), randomUUID()];
      await client.appendToStream('other', event('T', 5));
      const first = await client.appendToStream('s', [event('T', 1, ids[0]), event('T', 1, ids[1])], {
        expectedRevision: NO_STREAM,
      });
      await client.appendToStream('other', event('T', 5));
      const written = node.log.all.length;
      const retry = await client.appendToStream('s', [event('T', 1, ids[0]), event('T', 1, ids[1])], {
        expectedRevision: NO_STREAM,
      });
      expect(retry).to.deep.equal(first);
      expect(node.log.all.length).to.equal(written);
    });
  });

  describe('not the leader (RpcExceptions.LeaderInfo, ServiceBase.GetRequiresLeader)', () => {
    it('refuses a requires-leader append with NotLeader naming the leader, where the client then writes', async () => {
      const leader = await start();
      const follower = await start({ followerOf: leader });
      const client = connect(follower);
      const error = await client.appendToStream('s', event('T', 1), { requiresLeader: true }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(NotLeaderError);
      expect((error as NotLeaderError).leader).to.deep.equal({ address: '127.0.0.1', port: leader.port });
      expect(leader.log.stream('s')).to.equal(undefined);
      await client.appendToStream('s', event('T', 1), { requiresLeader: true });
      expect([leader.calls.batchAppend, leader.log.stream('s')?.length]).to.deep.equal([1, 1]);
    });

    it('forwards an append without requires-leader, and refuses a requires-leader read', async () => {
      const leader = await start();
      const follower = await start({ followerOf: leader });
      const client = connect(follower);
      await client.appendToStream('s', event('T', 1));
      expect([leader.calls.batchAppend, follower.calls.batchAppend, leader.log.stream('s')?.length]).to.deep.equal([undefined, 1, 1]);
      const read = async () => {
        for await (const _ of client.readStream('s', { requiresLeader: true }));
      };
      expect(await read().catch((e: unknown) => e)).to.be.instanceOf(NotLeaderError);
    });
  });

  describe('deadlines and write timeouts (Streams.BatchAppend.cs, RequestManagerBase.cs)', () => {
    it('answers Timeout to a batch whose deadline has passed, writing nothing', async () => {
      const node = await start();
      const client = connect(node);
      const error = await client.appendToStream('s', event('T', 1), { deadline: -1000 }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DeadlineExceededError);
      expect(node.log.stream('s')).to.equal(undefined);
    });

    it('answers Timeout to a write not done within WriteTimeoutMs, which lands later all the same', async () => {
      const node = await start({ writeTimeoutMs: 200 });
      const client = connect(node);
      const id = randomUUID();
      node.pauseWrites();
      const error = await client.appendToStream('s', event('T', 1, id), { expectedRevision: NO_STREAM }).catch((e) => e);
      expect(error).to.be.instanceOf(DeadlineExceededError);
      node.resumeWrites();
      expect(node.log.stream('s')!.map((e) => e.id)).to.deep.equal([id]);
      // the retry the adapter's callers make is then answered as a duplicate
      const retry = await client.appendToStream('s', event('T', 1, id), { expectedRevision: NO_STREAM });
      expect(retry.position?.commit).to.equal(node.log.stream('s')![0]!.position);
    });

    it('Append: answers ABORTED after WriteTimeoutMs; drops a write whose call the deadline ended', async () => {
      const node = await start({ batchAppend: false, writeTimeoutMs: 200 });
      const client = connect(node);
      node.pauseWrites();
      const timedOut = await client.appendToStream('late', event('T', 1)).catch((e: unknown) => e);
      expect(timedOut).to.be.instanceOf(TimeoutError);
      const slow = await start({ batchAppend: false, writeTimeoutMs: 60_000 });
      const slowClient = connect(slow);
      slow.pauseWrites();
      const error = await slowClient.appendToStream('gone', event('T', 1), { deadline: 300 }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DeadlineExceededError);
      await eventually(() => slow.calls['append cancelled'] === 1, Boolean, 'the double sees the call end');
      slow.resumeWrites();
      node.resumeWrites();
      expect([node.log.stream('late')?.length, slow.log.stream('gone')]).to.deep.equal([1, undefined]);
    });
  });

  describe('a restart (stop, then start on the same port)', () => {
    it('fails the open subscription (EventStoreUnavailable); the client reconnects, a new one resumes', async () => {
      const node = await start();
      const store = createEsdbEventStore(connect(node));
      const streams = testStreams('a');
      const subscription = store.subscribeToAll();
      const iterator = subscription[Symbol.asyncIterator]();
      const first = await store.append(streams.a, [newEvent('A1')], 'no_stream');
      const [seen] = await nextEvents(iterator, 1, (e: RecordedEvent) => e.streamName === streams.a);
      const pending = iterator.next();
      await node.stop();
      expect(await pending.catch((e: unknown) => e)).to.be.instanceOf(EventStoreUnavailable);
      await node.start();
      await eventually(
        async () =>
          await store.append(streams.a, [newEvent('A2')], 0n).then(
            () => true,
            () => false,
          ),
        Boolean,
        'the client reconnects',
      );
      const resumed = store.subscribeToAll({ after: seen!.position });
      try {
        const inA = (e: RecordedEvent) => e.streamName === streams.a;
        const [next] = await nextEvents(resumed[Symbol.asyncIterator](), 1, inA);
        expect([next!.revision, next!.type, next!.position > first.position]).to.deep.equal([1n, 'A2', true]);
      } finally {
        await resumed.close();
        await subscription.close();
      }
    });
  });

  describe('filtered $all subscriptions (Enumerator.AllSubscriptionFiltered.cs, SubscriptionsService.cs)', () => {
    // every checkpointInterval × maxSearchWindow considered events, at the end of the catch-up, and live
    it('reach checkpoints while catching up, when caught up, and live', async () => {
      const node = await start();
      const client = connect(node);
      for (let i = 0; i < 4; i++) await client.appendToStream('other', jsonEvent({ type: 'T', data: { i } }));
      const checkpoints: bigint[] = [];
      const subscription = client.subscribeToAll({
        filter: streamNameFilter({
          prefixes: ['wanted'],
          maxSearchWindow: 2,
          checkpointInterval: 1,
          checkpointReached: (_s, position) => void checkpoints.push(position.commit),
        }),
      });
      subscription.on('data', () => undefined);
      try {
        await eventually(() => checkpoints.length === 3, Boolean, 'the catch-up checkpoints');
        for (let i = 0; i < 2; i++) await client.appendToStream('other', jsonEvent({ type: 'T', data: { i } }));
        await eventually(() => checkpoints.length === 4, Boolean, 'a live checkpoint');
        // the log holds $settings, then the six 'other' events: 2 per interval
        const at = node.log.all.map((e) => e.position);
        expect(checkpoints).to.deep.equal([at[1], at[3], at[4], at[6]]);
      } finally {
        await subscription.unsubscribe();
      }
    });
  });
});
