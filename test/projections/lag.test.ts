import { expect } from 'chai';
import { createEsdbEventStore, esdbClientFromConnectionString } from '../../src/adapters/esdb/eventStore.js';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { toNewEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { createReadiness } from '../../src/http/health.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { allProjections } from '../../projections/index.js';
import { projectorLag } from '../../projections/lag.js';
import { createProjectionRunner } from '../../projections/runner.js';
import { startEsdbTestDouble, type EsdbTestDouble } from '../support/esdbTestDouble.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const meta = { correlationId: 'test' };
const accept = (store: EventStore, n: number) =>
  store.append(dataItemStream(itemId(n) as DataItemId), [toNewEvent(dataItemAccepted(itemId(n)), newEventId(), meta)], 'no_stream');

/** runs the projector until it has passed the head, then stops it */
async function catchUp(eventStore: EventStore, readStore: ReadStore): Promise<void> {
  const runner = createProjectionRunner({ eventStore, readStore, projections: allProjections });
  await runner.start();
  try {
    expect(await runner.waitFor(await eventStore.headPosition(), 20_000)).to.equal(true);
  } finally {
    await runner.stop();
  }
}

const stores: { name: string; open: () => Promise<{ eventStore: EventStore; stop: () => Promise<void> }> }[] = [
  {
    name: 'SQLite (positions: a sequence)',
    open: async () => {
      const eventStore = openSqliteEventStore({ path: ':memory:' });
      return { eventStore, stop: () => eventStore.close() };
    },
  },
  {
    name: 'EventStoreDB test double (positions: transaction-log offsets, hundreds of bytes per event)',
    open: async () => {
      const node: EsdbTestDouble = await startEsdbTestDouble();
      const eventStore = createEsdbEventStore(esdbClientFromConnectionString(node.connectionString));
      return { eventStore, stop: async () => (await eventStore.close(), await node.stop()) };
    },
  },
];

describe('projector lag, in events', function () {
  this.timeout(60_000);
  for (const { name, open } of stores) {
    describe(name, () => {
      let eventStore: EventStore;
      let readStore: ReadStore;
      let stop: () => Promise<void>;
      beforeEach(async () => {
        ({ eventStore, stop } = await open());
        readStore = openSqliteReadStore({ path: ':memory:' });
        await accept(eventStore, 0);
        await catchUp(eventStore, readStore);
      });
      afterEach(async () => Promise.all([stop(), readStore.close()]));

      it('is the number of events appended while the projector was stopped, and 0 once it caught up', async () => {
        for (let n = 1; n <= 5; n++) await accept(eventStore, n);
        const lag = await projectorLag(eventStore, readStore);
        expect(lag.behind).to.equal(5n);
        expect(new Set(Object.values(lag.byProjection))).to.deep.equal(new Set([5n]));

        await catchUp(eventStore, readStore);
        const caughtUp = await projectorLag(eventStore, readStore);
        expect(caughtUp.behind).to.equal(0n);
        expect(new Set(Object.values(caughtUp.byProjection))).to.deep.equal(new Set([0n]));
      });

      it('counts up to its cap: /ready counts to READY_MAX_LAG + 1, enough to tell "over the bound"', async () => {
        for (let n = 1; n <= 5; n++) await accept(eventStore, n);
        expect((await projectorLag(eventStore, readStore, allProjections, 3)).behind).to.equal(3n);
        const readiness = (maxLag: number) =>
          createReadiness({
            eventStore,
            readStore,
            blobStore: { stat: async () => undefined } as never,
            projectorLag: () => projectorLag(eventStore, readStore, allProjections, maxLag + 1),
            maxLag,
          });
        expect((await readiness(5).check()).checks.projectorLag).to.deep.equal({ ok: true, behind: 5, max: 5 });
        expect((await readiness(4).check()).checks.projectorLag).to.deep.equal({ ok: false, behind: 5, max: 4 });
      });
    });
  }
});
