import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createEsdbEventStore, esdbClientFromConnectionString } from '../../src/adapters/esdb/eventStore.js';
import { EventStoreUnavailable, type EventStore } from '../../src/ports/eventStore.js';
import { startEsdbTestDouble, type EsdbTestDouble } from '../support/esdbTestDouble.js';
import { eventStoreContract } from './contract.js';
import { collect, inStreams, newEvent, nextEvents, summary, testStreams } from './contractSupport.js';

const connect = (connectionString: string) => createEsdbEventStore(esdbClientFromConnectionString(connectionString));

describe('EventStoreDB event store on the gRPC test double', () => {
  let node: EsdbTestDouble | undefined;
  // A fresh node per test, so the contract may also assert what an empty store answers.
  const fresh = async () => {
    await node?.stop();
    node = await startEsdbTestDouble();
    return connect(node.connectionString);
  };
  after(async () => node?.stop());

  eventStoreContract('EventStoreDB (test double)', fresh, { freshStore: true });

  describe('system events', () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await fresh();
    });
    afterEach(() => store.close());

    it('leaves them out of readAll and of the head position', async () => {
      const streams = testStreams('a');
      const appended = await store.append(streams.a, [newEvent('A1')], 'no_stream');
      node!.appendSystemEvent();
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${streams.a}:0:A1`]);
      expect(await store.headPosition()).to.equal(appended.position);
    });

    it('leaves them out of countEventsAfter, which counts events and not the bytes between positions', async () => {
      const streams = testStreams('a');
      const first = await store.append(streams.a, [newEvent('A1')], 'no_stream');
      node!.appendSystemEvent();
      const last = await store.append(streams.a, [newEvent('A2'), newEvent('A3')], 0n);
      node!.appendSystemEvent();
      // positions are transaction-log offsets: far more than one apart per event
      expect(last.position - first.position > 2n).to.equal(true);
      expect(await store.countEventsAfter(first.position, 1_000)).to.equal(2);
      expect(await store.countEventsAfter(0n, 1_000)).to.equal(3);
    });

    it('leaves them out of subscriptions', async () => {
      const streams = testStreams('a');
      const subscription = store.subscribeToAll();
      try {
        const iterator = subscription[Symbol.asyncIterator]();
        node!.appendSystemEvent();
        await store.append(streams.a, [newEvent('A1')], 'no_stream');
        expect(summary(await nextEvents(iterator, 1, () => true))).to.deep.equal([`${streams.a}:0:A1`]);
      } finally {
        await subscription.close();
      }
    });

    it('reads past pages made only of system events', async () => {
      const paged = createEsdbEventStore(esdbClientFromConnectionString(node!.connectionString), { pageSize: 2 });
      try {
        const streams = testStreams('a');
        await paged.append(streams.a, [newEvent('A1')], 'no_stream');
        for (let i = 0; i < 5; i++) node!.appendSystemEvent();
        await paged.append(streams.a, [newEvent('A2')], 0n);
        for (let i = 0; i < 5; i++) node!.appendSystemEvent();
        const all = (await collect(paged.readAll())).filter(inStreams(streams));
        expect(summary(all)).to.deep.equal([`${streams.a}:0:A1`, `${streams.a}:1:A2`]);
        expect(await paged.headPosition()).to.equal(all[1]!.position);
      } finally {
        await paged.close();
      }
    });
  });

  describe('servers that answer a deduplicated append without a position', () => {
    it('looks the position up', async () => {
      const old = await startEsdbTestDouble({ idempotentWritesWithoutPosition: true });
      const store = connect(old.connectionString);
      try {
        const { a } = testStreams('a');
        const event = newEvent('A1');
        const first = await store.append(a, [event], 'no_stream');
        expect(await store.append(a, [event], 'no_stream')).to.deep.equal(first);
      } finally {
        await store.close();
        await old.stop();
      }
    });
  });

  describe('connection failures', () => {
    it('fail an open subscription with EventStoreUnavailable when the server goes away', async () => {
      const doomed = await startEsdbTestDouble();
      const store = connect(doomed.connectionString);
      const streams = testStreams('a');
      const subscription = store.subscribeToAll();
      try {
        const iterator = subscription[Symbol.asyncIterator]();
        await store.append(streams.a, [newEvent('A1')], 'no_stream');
        await nextEvents(iterator, 1, inStreams(streams));
        const pending = iterator.next();
        await doomed.stop();
        const error = await pending.catch((e: unknown) => e);
        expect(error).to.be.instanceOf(EventStoreUnavailable);
      } finally {
        await store.close();
      }
    });

    it('reject an append with EventStoreUnavailable', async () => {
      const gone = await startEsdbTestDouble();
      await gone.stop();
      const store = connect(gone.connectionString);
      try {
        const error = await store.append(testStreams('a').a, [newEvent('A1')], 'no_stream').catch((e: unknown) => e);
        expect(error).to.be.instanceOf(EventStoreUnavailable);
      } finally {
        await store.close();
      }
    });
  });
});

const eventStoreUrl = process.env.EVENTSTORE_URL;
if (eventStoreUrl) {
  describe('EventStoreDB event store on a real server (EVENTSTORE_URL)', () => {
    // A shared server keeps its events: the contract then scopes every assertion to its own streams.
    eventStoreContract(`EventStoreDB at ${eventStoreUrl}`, async () => connect(eventStoreUrl), { freshStore: false });

    it('stores events whose ids are uuids the server accepts', async () => {
      const store = connect(eventStoreUrl);
      try {
        const { a } = testStreams('a');
        const id = randomUUID();
        await store.append(a, [newEvent('A1', {}, id)], 'no_stream');
        expect((await collect(store.readStream(a))).map((e) => e.id)).to.deep.equal([id]);
      } finally {
        await store.close();
      }
    });
  });
} else {
  describe('EventStoreDB event store on a real server', () => {
    it('was not run: EVENTSTORE_URL is not set (e.g. EVENTSTORE_URL=esdb://127.0.0.1:2113?tls=false)');
  });
}
