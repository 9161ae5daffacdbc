import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { accountStream } from '../../src/domain/account/ids.js';
import { toNewEvent, type DomainEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import type { EventStore, StreamName } from '../../src/ports/eventStore.js';
import type { ReadStore, StoredDocument } from '../../src/ports/readStore.js';
import { createProjectionRunner } from '../../projections/runner.js';
import { checkpointOf, collectionOf, type AnyProjection } from '../../projections/index.js';
import { dataItemAccepted, itemId } from '../support/events.js';

/**
 * A fresh SQLite event store and read store in a temporary directory for each test of the calling
 * suite (registered as its first beforeEach, so the suite's own hooks see them), closed and deleted after.
 */
export function sqliteStoresEach(prefix: string): { readonly events: EventStore; readonly reads: ReadStore } {
  let dir: string;
  const stores = {} as { events: EventStore; reads: ReadStore };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    stores.events = openSqliteEventStore({ path: join(dir, 'events.db') });
    stores.reads = openSqliteReadStore({ path: join(dir, 'read.db') });
  });
  afterEach(async () => {
    await stores.events.close();
    await stores.reads.close();
    await rm(dir, { recursive: true, force: true });
  });
  return stores;
}

type Documents = (StoredDocument<unknown> & { id: string })[];

/** every document of a collection, scanned a page at a time */
export async function documentsOf(store: ReadStore, collection: string): Promise<Documents> {
  const all: Documents = [];
  for (;;) {
    const last = all[all.length - 1];
    const page = await store.scan<unknown>(collection, { limit: 100, ...(last ? { afterId: last.id } : {}) });
    all.push(...page);
    if (page.length < 100) return all;
  }
}

/** each projection's collection (every document, with its position) and checkpoint */
export async function readModelsOf(store: ReadStore, projections: readonly AnyProjection[]) {
  const models: Record<string, { documents: Documents; checkpoint: bigint | undefined }> = {};
  for (const p of projections) {
    models[collectionOf(p)] = { documents: await documentsOf(store, collectionOf(p)), checkpoint: await store.getCheckpoint(checkpointOf(p)) };
  }
  return models;
}

/** what the runner makes of every event in `eventStore`, from nothing, in a store of its own */
export async function freshReadModels(eventStore: EventStore, projections: readonly AnyProjection[]) {
  const store = openSqliteReadStore({ path: ':memory:' });
  try {
    const runner = createProjectionRunner({ eventStore, readStore: store, projections });
    await runner.start();
    if (!(await runner.waitFor(await eventStore.headPosition(), 10_000))) throw new Error('the fresh projection did not catch up');
    await runner.stop();
    return await readModelsOf(store, projections);
  } finally {
    await store.close();
  }
}

const meta = { correlationId: 'test' };
const append = (store: EventStore, stream: StreamName, event: DomainEvent) => store.append(stream, [toNewEvent(event, newEventId(), meta)], 'any');

/**
 * Item n accepted and paid by account `payer-<n % 3>`: credited once, a reservation settled, and
 * for odd n a second one left open. Documents get created, changed, and deleted (settled reservations).
 */
export async function appendUploads(store: EventStore, from: number, to: number): Promise<bigint> {
  let position = 0n;
  for (let n = from; n <= to; n++) {
    const address = `payer-${n % 3}`;
    const reserved = (reservationId: string) =>
      ({ type: 'BalanceReserved', data: { address, reservationId, winc: String(n), dataItemId: itemId(n), timestamp: n } }) as const;
    await append(store, accountStream(address), { type: 'AccountCredited', data: { address, winc: '100', creditId: `c${n}`, timestamp: n } });
    await append(store, accountStream(address), reserved(`r${n}`));
    await append(store, dataItemStream(itemId(n) as DataItemId), dataItemAccepted(itemId(n), { winc: String(n) }));
    ({ position } = await append(store, accountStream(address), {
      type: 'ReservationSettled',
      data: { address, reservationId: `r${n}`, winc: String(n), dataItemId: itemId(n), timestamp: n },
    }));
    if (n % 2 === 1) ({ position } = await append(store, accountStream(address), reserved(`open${n}`)));
  }
  return position;
}
