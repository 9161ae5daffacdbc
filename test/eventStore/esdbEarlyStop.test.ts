/**
 * Stream reads in pages: a reader that stops early (the audit's "is this item accepted?" reads one
 * event and returns) leaves no gRPC call behind, as the client's dispose() waits for every call it
 * knows of to finish. Here the reads themselves; the hang they caused (`npm run audit` on the node
 * exited 13, its close() never returning) shows across processes only: test/scaleout/lifecycle.test.ts.
 */
import { expect } from 'chai';
import { createEsdbEventStore, esdbClientFromConnectionString } from '../../src/adapters/esdb/eventStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { startEsdbTestDouble, type EsdbTestDouble } from '../support/esdbTestDouble.js';
import { collect, newEvent, testStreams } from './contractSupport.js';

describe('EventStoreDB event store: readers that stop early (test double)', function () {
  this.timeout(30_000);
  let node: EsdbTestDouble;
  let store: EventStore;
  beforeEach(async () => {
    node = await startEsdbTestDouble();
    store = createEsdbEventStore(esdbClientFromConnectionString(node.connectionString), { pageSize: 2 });
  });
  afterEach(() => node.stop());

  it('gives the first event to readers that stop there, with or without maxCount, from a revision, then closes', async () => {
    const { s, other } = testStreams('s', 'other');
    await store.append(s, [newEvent('A'), newEvent('B'), newEvent('C'), newEvent('D'), newEvent('E')], 'no_stream');
    await store.append(other, [newEvent('O')], 'no_stream');
    const firstOf = async (options: Parameters<EventStore['readStream']>[1]) => {
      for await (const event of store.readStream(s, options)) {
        // a whole read on the same connection: by its end the rest of this answer (trailers) is in
        await collect(store.readStream(other));
        return event.type;
      }
      return undefined;
    };
    const firsts = [];
    for (const options of [{ maxCount: 1 }, { maxCount: 3 }, {}, { fromRevision: 3n }, { fromRevision: 1n, maxCount: 2 }]) {
      for (let i = 0; i < 5; i++) firsts.push(await firstOf(options));
    }
    expect(firsts).to.deep.equal([...Array(15).fill('A'), ...Array(5).fill('D'), ...Array(5).fill('B')]);
    await store.close();
  });

  it('reads whole streams across pages, from a revision and up to a count', async () => {
    const { s } = testStreams('s');
    await store.append(
      s,
      ['A', 'B', 'C', 'D', 'E'].map((t) => newEvent(t)),
      'no_stream',
    );
    const types = async (options: Parameters<EventStore['readStream']>[1]) => {
      const out: string[] = [];
      for await (const event of store.readStream(s, options)) out.push(`${event.revision}:${event.type}`);
      return out;
    };
    expect(await types({})).to.deep.equal(['0:A', '1:B', '2:C', '3:D', '4:E']);
    expect(await types({ fromRevision: 1n, maxCount: 3 })).to.deep.equal(['1:B', '2:C', '3:D']);
    expect(await types({ fromRevision: 4n })).to.deep.equal(['4:E']);
    expect(await types({ fromRevision: 5n })).to.deep.equal([]);
    expect(await types({ maxCount: 4 })).to.deep.equal(['0:A', '1:B', '2:C', '3:D']);
    await store.close();
  });
});
