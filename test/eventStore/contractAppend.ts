/** Contract: append with an expected revision, the typed conflict, idempotent retries. */
import { expect } from 'chai';
import type { EventStore } from '../../src/ports/eventStore.js';
import { expectConflict, newEvent, readStreamOf, summary, testStreams } from './contractSupport.js';

export function appendContract(store: () => EventStore): void {
  describe('append', () => {
    it('creates a stream with no_stream and answers revision 0 and the position of the stored event', async () => {
      const { a } = testStreams('a');
      const result = await store().append(a, [newEvent('Created')], 'no_stream');
      const stored = await readStreamOf(store(), a);
      expect(result.nextRevision).to.equal(0n);
      expect(stored.map((e) => e.position)).to.deep.equal([result.position]);
    });

    it('gives the events of one append consecutive revisions and answers the last', async () => {
      const { a } = testStreams('a');
      const result = await store().append(a, [newEvent('One'), newEvent('Two'), newEvent('Three')], 'no_stream');
      const stored = await readStreamOf(store(), a);
      expect(result.nextRevision).to.equal(2n);
      expect(summary(stored)).to.deep.equal([`${a}:0:One`, `${a}:1:Two`, `${a}:2:Three`]);
      expect(stored[2]!.position).to.equal(result.position);
    });

    it('stores id, type, data, metadata and the stream name as given', async () => {
      const { a } = testStreams('a');
      const event = newEvent('Created', { size: 42, tags: ['x', 'y'], nested: { ok: true } });
      const before = Date.now();
      await store().append(a, [event], 'no_stream');
      const [stored] = await readStreamOf(store(), a);
      expect({ id: stored!.id, type: stored!.type, data: stored!.data, metadata: stored!.metadata }).to.deep.equal({
        id: event.id,
        type: 'Created',
        data: { size: 42, tags: ['x', 'y'], nested: { ok: true } },
        metadata: { correlationId: 'req-1', causationId: 'cmd-1', schemaVersion: 1 },
      });
      expect(stored!.streamName).to.equal(a);
      // The store's clock may be another machine's: allow for skew, not for a wrong unit.
      expect(stored!.created).to.be.within(before - 300_000, Date.now() + 300_000);
    });

    it('rejects no_stream on an existing stream with the actual revision', async () => {
      const { a } = testStreams('a');
      await store().append(a, [newEvent('One'), newEvent('Two')], 'no_stream');
      await expectConflict(store().append(a, [newEvent('Again')], 'no_stream'), {
        stream: a,
        expected: 'no_stream',
        actual: 1n,
      });
      expect(summary(await readStreamOf(store(), a))).to.deep.equal([`${a}:0:One`, `${a}:1:Two`]);
    });

    it('appends when the expected revision is the last revision of the stream', async () => {
      const { a } = testStreams('a');
      await store().append(a, [newEvent('One')], 'no_stream');
      const result = await store().append(a, [newEvent('Two')], 0n);
      expect(result.nextRevision).to.equal(1n);
      expect(summary(await readStreamOf(store(), a))).to.deep.equal([`${a}:0:One`, `${a}:1:Two`]);
    });

    it('rejects a stale expected revision with the actual revision', async () => {
      const { a } = testStreams('a');
      await store().append(a, [newEvent('One'), newEvent('Two')], 'no_stream');
      await expectConflict(store().append(a, [newEvent('Three')], 0n), { stream: a, expected: 0n, actual: 1n });
    });

    it('rejects an expected revision on a missing stream with actual no_stream', async () => {
      const { a } = testStreams('a');
      await expectConflict(store().append(a, [newEvent('One')], 0n), { stream: a, expected: 0n, actual: 'no_stream' });
      expect(await readStreamOf(store(), a)).to.deep.equal([]);
    });

    it('appends with stream_exists to an existing stream', async () => {
      const { a } = testStreams('a');
      await store().append(a, [newEvent('One')], 'no_stream');
      const result = await store().append(a, [newEvent('Two')], 'stream_exists');
      expect(result.nextRevision).to.equal(1n);
    });

    it('rejects stream_exists on a missing stream with actual no_stream', async () => {
      const { a } = testStreams('a');
      await expectConflict(store().append(a, [newEvent('One')], 'stream_exists'), {
        stream: a,
        expected: 'stream_exists',
        actual: 'no_stream',
      });
    });

    it('appends with any whether or not the stream exists', async () => {
      const { a } = testStreams('a');
      const first = await store().append(a, [newEvent('One')], 'any');
      const second = await store().append(a, [newEvent('Two')], 'any');
      expect([first.nextRevision, second.nextRevision]).to.deep.equal([0n, 1n]);
      expect(second.position > first.position).to.equal(true);
    });

    it('stores a retried append once and answers the original revision and position', async () => {
      const { a } = testStreams('a');
      const events = [newEvent('One'), newEvent('Two')];
      const first = await store().append(a, events, 'no_stream');
      const retry = await store().append(a, events, 'no_stream');
      expect(retry).to.deep.equal(first);
      expect(summary(await readStreamOf(store(), a))).to.deep.equal([`${a}:0:One`, `${a}:1:Two`]);
    });

    it('stores a retried append once when it expected any', async () => {
      const { a } = testStreams('a');
      const event = newEvent('One');
      const first = await store().append(a, [event], 'any');
      const retry = await store().append(a, [event], 'any');
      expect(retry).to.deep.equal(first);
      expect(summary(await readStreamOf(store(), a))).to.deep.equal([`${a}:0:One`]);
    });

    it('answers a retry with its original result after the stream moved on', async () => {
      const { a } = testStreams('a');
      await store().append(a, [newEvent('One')], 'no_stream');
      const event = newEvent('Two');
      const first = await store().append(a, [event], 0n);
      await store().append(a, [newEvent('Three')], 1n);
      const retry = await store().append(a, [event], 0n);
      expect(retry).to.deep.equal(first);
      expect(summary(await readStreamOf(store(), a))).to.deep.equal([`${a}:0:One`, `${a}:1:Two`, `${a}:2:Three`]);
    });
    it('rejects a retry whose events only partly match the stored ones', async () => {
      const { a } = testStreams('a');
      const one = newEvent('One');
      await store().append(a, [one, newEvent('Two')], 'no_stream');
      await expectConflict(store().append(a, [one, newEvent('Other')], 'no_stream'), {
        stream: a,
        expected: 'no_stream',
        actual: 1n,
      });
      expect(summary(await readStreamOf(store(), a))).to.deep.equal([`${a}:0:One`, `${a}:1:Two`]);
    });
  });
}
