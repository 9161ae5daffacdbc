/** Contract: reading one stream, reading `$all` from a position, the head position. */
import { expect } from 'chai';
import type { EventStore } from '../../src/ports/eventStore.js';
import { collect, inStreams, isAscending, newEvent, summary, testStreams, type ContractOptions } from './contractSupport.js';

export function readContract(store: () => EventStore, options: ContractOptions): void {
  describe('readStream', () => {
    it('reads the events of a stream in revision order, and only those', async () => {
      const { a, b } = testStreams('a', 'b');
      await store().append(a, [newEvent('A1'), newEvent('A2')], 'no_stream');
      await store().append(b, [newEvent('B1')], 'no_stream');
      await store().append(a, [newEvent('A3')], 1n);
      expect(summary(await collect(store().readStream(a)))).to.deep.equal([`${a}:0:A1`, `${a}:1:A2`, `${a}:2:A3`]);
    });

    it('reads from a revision', async () => {
      const { a } = testStreams('a');
      await store().append(
        a,
        ['E0', 'E1', 'E2', 'E3', 'E4'].map((t) => newEvent(t)),
        'no_stream',
      );
      const events = await collect(store().readStream(a, { fromRevision: 2n }));
      expect(summary(events)).to.deep.equal([`${a}:2:E2`, `${a}:3:E3`, `${a}:4:E4`]);
    });

    it('reads at most maxCount events, from a revision when given', async () => {
      const { a } = testStreams('a');
      await store().append(
        a,
        ['E0', 'E1', 'E2', 'E3', 'E4'].map((t) => newEvent(t)),
        'no_stream',
      );
      expect(summary(await collect(store().readStream(a, { maxCount: 2 })))).to.deep.equal([`${a}:0:E0`, `${a}:1:E1`]);
      expect(summary(await collect(store().readStream(a, { fromRevision: 3n, maxCount: 5 })))).to.deep.equal([`${a}:3:E3`, `${a}:4:E4`]);
    });

    it('reads nothing from a stream that does not exist', async () => {
      const { a } = testStreams('a');
      expect(await collect(store().readStream(a))).to.deep.equal([]);
    });
  });

  describe('readAll', () => {
    it('reads the events after a position, in position order', async () => {
      const streams = testStreams('a', 'b');
      const { a, b } = streams;
      const head = await store().headPosition();
      await store().append(a, [newEvent('A1'), newEvent('A2')], 'no_stream');
      await store().append(b, [newEvent('B1')], 'no_stream');
      await store().append(a, [newEvent('A3')], 1n);
      const events = (await collect(store().readAll({ after: head }))).filter(inStreams(streams));
      expect(summary(events)).to.deep.equal([`${a}:0:A1`, `${a}:1:A2`, `${b}:0:B1`, `${a}:2:A3`]);
      expect(isAscending(events.map((e) => e.position))).to.equal(true);
    });

    it('excludes the event at the position itself', async () => {
      const streams = testStreams('a');
      const { a } = streams;
      await store().append(a, [newEvent('A1'), newEvent('A2'), newEvent('A3')], 'no_stream');
      const [first] = await collect(store().readStream(a));
      const events = (await collect(store().readAll({ after: first!.position }))).filter(inStreams(streams));
      expect(summary(events)).to.deep.equal([`${a}:1:A2`, `${a}:2:A3`]);
    });

    it('reads at most maxCount events', async () => {
      const { a } = testStreams('a');
      await store().append(a, [newEvent('A1'), newEvent('A2'), newEvent('A3')], 'no_stream');
      const [first] = await collect(store().readStream(a));
      const events = await collect(store().readAll({ after: first!.position, maxCount: 1 }));
      expect(summary(events)).to.deep.equal([`${a}:1:A2`]);
    });

    it('starts at the beginning when no position is given', async () => {
      const streams = testStreams('a');
      const { a } = streams;
      await store().append(a, [newEvent('A1'), newEvent('A2')], 'no_stream');
      const events = (await collect(store().readAll())).filter(inStreams(streams));
      expect(summary(events)).to.deep.equal([`${a}:0:A1`, `${a}:1:A2`]);
    });

    it('gives each event the same position as reading its stream does', async () => {
      const streams = testStreams('a');
      const { a } = streams;
      const head = await store().headPosition();
      await store().append(a, [newEvent('A1'), newEvent('A2')], 'no_stream');
      const fromAll = (await collect(store().readAll({ after: head }))).filter(inStreams(streams));
      const fromStream = await collect(store().readStream(a));
      expect(fromAll).to.deep.equal(fromStream);
    });

    if (options.freshStore) {
      it('reads nothing from an empty store', async () => {
        expect(await collect(store().readAll())).to.deep.equal([]);
      });
    }
  });

  describe('headPosition', () => {
    it('is the position of the newest event', async () => {
      const { a, b } = testStreams('a', 'b');
      await store().append(a, [newEvent('A1')], 'no_stream');
      const last = await store().append(b, [newEvent('B1'), newEvent('B2')], 'no_stream');
      expect(await store().headPosition()).to.equal(last.position);
    });

    if (options.freshStore) {
      it('is 0 on an empty store', async () => {
        expect(await store().headPosition()).to.equal(0n);
      });
    }
  });

  describe('countEventsAfter', () => {
    it('counts the events after a position, in events whatever the distance between positions', async () => {
      const { a, b } = testStreams('a', 'b');
      const before = await store().headPosition();
      await store().append(a, [newEvent('A1'), newEvent('A2')], 'no_stream');
      const middle = await store().append(b, [newEvent('B1')], 'no_stream');
      await store().append(a, [newEvent('A3'), newEvent('A4')], 1n);
      expect(await store().countEventsAfter(before, 100)).to.equal(5);
      expect(await store().countEventsAfter(middle.position, 100)).to.equal(2);
      expect(await store().countEventsAfter(await store().headPosition(), 100)).to.equal(0);
    });

    it('counts no further than the limit', async () => {
      const { a } = testStreams('a');
      const before = await store().headPosition();
      await store().append(
        a,
        ['E0', 'E1', 'E2', 'E3', 'E4'].map((t) => newEvent(t)),
        'no_stream',
      );
      expect(await store().countEventsAfter(before, 3)).to.equal(3);
      expect(await store().countEventsAfter(before, 5)).to.equal(5);
      expect(await store().countEventsAfter(before, 0)).to.equal(0);
    });
  });
}
