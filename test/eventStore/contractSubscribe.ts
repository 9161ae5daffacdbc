/** Contract: subscribing to `$all`, catch-up then live, and ending a subscription. */
import { expect } from 'chai';
import type { EventStore, RecordedEvent } from '../../src/ports/eventStore.js';
import { collect, inStreams, newEvent, nextEvents, summary, testStreams } from './contractSupport.js';

export function subscribeContract(store: () => EventStore): void {
  describe('subscribeToAll', () => {
    it('delivers past events, then live ones, in order and none twice', async () => {
      const streams = testStreams('a', 'b');
      const { a, b } = streams;
      const head = await store().headPosition();
      await store().append(a, [newEvent('A1'), newEvent('A2')], 'no_stream');
      const subscription = store().subscribeToAll({ after: head });
      const iterator = subscription[Symbol.asyncIterator]();
      try {
        const past = await nextEvents(iterator, 2, inStreams(streams));
        // Appended only once the past events arrived, so these can only come through the live path.
        await store().append(b, [newEvent('B1')], 'no_stream');
        await store().append(a, [newEvent('A3')], 1n);
        const live = await nextEvents(iterator, 2, inStreams(streams));
        // A marker after everything: anything delivered twice would show up before it.
        const { c } = testStreams('c');
        await store().append(c, [newEvent('End')], 'no_stream');
        const rest = await nextEvents(iterator, 1, (e) => inStreams(streams)(e) || e.streamName === c);
        expect(summary([...past, ...live, ...rest])).to.deep.equal([`${a}:0:A1`, `${a}:1:A2`, `${b}:0:B1`, `${a}:2:A3`, `${c}:0:End`]);
      } finally {
        await subscription.close();
      }
    });

    it('starts strictly after the given position', async () => {
      const streams = testStreams('a');
      const { a } = streams;
      await store().append(a, [newEvent('A1'), newEvent('A2')], 'no_stream');
      const [first] = await collect(store().readStream(a));
      const subscription = store().subscribeToAll({ after: first!.position });
      try {
        const events = await nextEvents(subscription[Symbol.asyncIterator](), 1, inStreams(streams));
        expect(summary(events)).to.deep.equal([`${a}:1:A2`]);
      } finally {
        await subscription.close();
      }
    });

    it('delivers the same events as readAll, positions included', async () => {
      const streams = testStreams('a');
      const { a } = streams;
      const head = await store().headPosition();
      await store().append(a, [newEvent('A1', { n: 1 }), newEvent('A2', { n: 2 })], 'no_stream');
      const subscription = store().subscribeToAll({ after: head });
      try {
        const delivered = await nextEvents(subscription[Symbol.asyncIterator](), 2, inStreams(streams));
        const read = (await collect(store().readAll({ after: head }))).filter(inStreams(streams));
        expect(delivered).to.deep.equal(read);
      } finally {
        await subscription.close();
      }
    });

    it('ends a for-await loop waiting for events when closed', async () => {
      const streams = testStreams('a');
      const { a } = streams;
      const head = await store().headPosition();
      await store().append(a, [newEvent('A1')], 'no_stream');
      const subscription = store().subscribeToAll({ after: head });
      const seen: RecordedEvent[] = [];
      const loop = (async () => {
        for await (const event of subscription) {
          if (!inStreams(streams)(event)) continue;
          seen.push(event);
          // Closed from inside the loop once caught up; the loop must then end, not hang.
          if (seen.length === 1) setImmediate(() => void subscription.close());
        }
        return 'ended';
      })();
      expect(await loop).to.equal('ended');
      expect(summary(seen)).to.deep.equal([`${a}:0:A1`]);
    });

    it('answers a pending next() with done when closed', async () => {
      const head = await store().headPosition();
      const { a } = testStreams('a');
      await store().append(a, [newEvent('A1')], 'no_stream');
      const subscription = store().subscribeToAll({ after: head });
      const iterator = subscription[Symbol.asyncIterator]();
      await nextEvents(iterator, 1, (e) => e.streamName === a);
      const pending = iterator.next();
      await subscription.close();
      expect(await pending).to.deep.equal({ done: true, value: undefined });
    });
  });
}
