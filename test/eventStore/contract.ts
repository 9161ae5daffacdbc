/**
 * The event store contract: one mocha suite that every adapter of `src/ports/eventStore.ts` passes.
 *
 *   eventStoreContract('SQLite', async () => openSqliteEventStore({ path }), { freshStore: true });
 *
 * The factory is called before each test and the store closed after it.
 */
import { expect } from 'chai';
import { EventStoreUnavailable, type EventStore } from '../../src/ports/eventStore.js';
import { appendContract } from './contractAppend.js';
import { readContract } from './contractRead.js';
import { subscribeContract } from './contractSubscribe.js';
import { inStreams, newEvent, nextEvents, testStreams, type ContractOptions, type StoreFactory } from './contractSupport.js';

export type { ContractOptions, StoreFactory } from './contractSupport.js';

export function eventStoreContract(name: string, factory: StoreFactory, options: ContractOptions): void {
  describe(`event store contract: ${name}`, () => {
    let current: EventStore | undefined;
    const store = () => {
      if (!current) throw new Error('no store: the factory has not run');
      return current;
    };

    beforeEach(async () => {
      current = await factory();
    });

    afterEach(async () => {
      await current?.close();
      current = undefined;
    });

    appendContract(store);
    readContract(store, options);
    subscribeContract(store);

    describe('close', () => {
      it('ends the iteration of the subscriptions still open', async () => {
        const streams = testStreams('a');
        const head = await store().headPosition();
        await store().append(streams.a, [newEvent('A1')], 'no_stream');
        const subscription = store().subscribeToAll({ after: head });
        const iterator = subscription[Symbol.asyncIterator]();
        await nextEvents(iterator, 1, inStreams(streams));
        const pending = iterator.next();
        await store().close();
        expect(await pending).to.deep.equal({ done: true, value: undefined });
      });

      it('can be called twice', async () => {
        await store().close();
        await store().close();
      });

      it('makes later calls fail with EventStoreUnavailable', async () => {
        await store().close();
        const error = await store()
          .append(testStreams('a').a, [newEvent('A1')], 'no_stream')
          .catch((e: unknown) => e);
        expect(error).to.be.instanceOf(EventStoreUnavailable);
      });
    });
  });
}
