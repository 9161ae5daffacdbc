/**
 * `throwOnAppendFailure=false` in the connection string makes the client answer a conflict as a
 * value whose revision is wrong (client 6.2.1's batchAppend: `BigInt(hasCurrentStreamRevision())`,
 * 1n for any existing stream). The adapter's WrongExpectedRevision must still carry the stream's
 * actual revision.
 */
import { expect } from 'chai';
import { createEsdbEventStore, esdbClientFromConnectionString } from '../../src/adapters/esdb/eventStore.js';
import { WrongExpectedRevision, type EventStore } from '../../src/ports/eventStore.js';
import { startEsdbTestDouble, type EsdbTestDouble } from '../support/esdbTestDouble.js';
import { newEvent, testStreams } from './contractSupport.js';

describe('EventStoreDB event store with throwOnAppendFailure=false (test double)', () => {
  let node: EsdbTestDouble;
  let store: EventStore;
  beforeEach(async () => {
    node = await startEsdbTestDouble();
    store = createEsdbEventStore(esdbClientFromConnectionString(`${node.connectionString}&throwOnAppendFailure=false`));
  });
  afterEach(async () => {
    await store.close();
    await node.stop();
  });

  const conflict = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('the append succeeded'),
      (error: unknown) => {
        expect(error).to.be.instanceOf(WrongExpectedRevision);
        const { stream, expected, actual } = error as WrongExpectedRevision;
        return { stream, expected, actual };
      },
    );

  it("answers a stale expected revision with the stream's last revision, not the client's 1n", async () => {
    const { s } = testStreams('s');
    await store.append(s, [newEvent('A'), newEvent('B'), newEvent('C'), newEvent('D')], 'no_stream');
    expect(await conflict(store.append(s, [newEvent('E')], 0n))).to.deep.equal({ stream: s, expected: 0n, actual: 3n });
    expect(await conflict(store.append(s, [newEvent('E')], 'no_stream'))).to.deep.equal({ stream: s, expected: 'no_stream', actual: 3n });
  });

  it('answers no_stream for a stream that does not exist', async () => {
    const { s } = testStreams('s');
    expect(await conflict(store.append(s, [newEvent('A')], 2n))).to.deep.equal({ stream: s, expected: 2n, actual: 'no_stream' });
  });

  it('still appends at the right revision', async () => {
    const { s } = testStreams('s');
    await store.append(s, [newEvent('A')], 'no_stream');
    expect((await store.append(s, [newEvent('B')], 0n)).nextRevision).to.equal(1n);
  });
});
