import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { streamName } from '../../src/ports/eventStore.js';
import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { createReadiness } from '../../src/http/health.js';
import { projectorLag } from '../../projections/lag.js';
import { checkpointOf, txStatusProjection } from '../../projections/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fillableBlobStore, type FillableBlobStore } from '../support/fillableBlobStore.js';
import { fillSqlite, NO_PAGE_LIMIT } from '../support/fullSqlite.js';
import { openSqliteEventStoreWithConnection } from '../support/sqliteEventStoreConnection.js';
import { startTestService, type TestService } from '../support/testService.js';

interface Ready {
  status: number;
  failed: string[];
  checks: Record<string, { ok: boolean; error?: string }>;
}

const readyOf = async (service: TestService): Promise<Ready> => {
  const res = await fetch(`${service.url}/ready`);
  // a 503 says when to ask again (CONTRACT.md section 10); a 200 does not
  expect(res.headers.get('retry-after')).to.equal(res.status === 503 ? '5' : null);
  const body = (await res.json()) as Omit<Ready, 'status'>;
  return { status: res.status, failed: body.failed, checks: body.checks };
};

describe('readiness when a store cannot take writes', function () {
  this.timeout(60_000);
  let service: TestService | undefined;
  let eventsDb: Database.Database;
  let readDb: Database.Database;
  let blobs: FillableBlobStore;

  beforeEach(async function () {
    service = await startTestService({}, async (dataDir) => {
      blobs = fillableBlobStore(await openFsBlobStore({ root: join(dataDir, 'blobs') }));
      const events = openSqliteEventStoreWithConnection({ path: join(dataDir, 'events.db') });
      eventsDb = events.db;
      return {
        eventStore: events.store,
        readStore: openSqliteReadStore({ path: join(dataDir, 'read.db'), onOpen: (db) => (readDb = db) }),
        blobStore: blobs.store,
      };
    });
    expect((await readyOf(service)).status).to.equal(200);
  });
  afterEach(async function () {
    await service?.close();
    service = undefined;
  });

  it('answers 503 naming eventStore when the event store file is full (SQLITE_FULL), and 200 once it may grow again', async function () {
    fillSqlite(eventsDb);
    const ready = await readyOf(service!);
    expect(ready.status).to.equal(503);
    expect(ready.failed).to.deep.equal(['eventStore']);
    expect(ready.checks.eventStore).to.deep.equal({ ok: false, error: 'EventStoreUnavailable' });
    eventsDb.pragma(`max_page_count = ${NO_PAGE_LIMIT}`);
    expect((await readyOf(service!)).status).to.equal(200);
  });

  it('answers 503 naming eventStore when the event store file is read-only (SQLITE_READONLY), and 200 once it is writable', async function () {
    eventsDb.pragma('query_only = ON');
    const ready = await readyOf(service!);
    expect(ready.status).to.equal(503);
    expect(ready.failed).to.deep.equal(['eventStore']);
    expect(ready.checks.eventStore).to.deep.equal({ ok: false, error: 'EventStoreUnavailable' });
    eventsDb.pragma('query_only = OFF');
    expect((await readyOf(service!)).status).to.equal(200);
  });

  it('answers 503 naming readStore when the read store file is full or read-only, and 200 once it is writable', async function () {
    readDb.pragma('query_only = ON');
    const readOnly = await readyOf(service!);
    expect(readOnly.status).to.equal(503);
    expect(readOnly.failed).to.deep.equal(['readStore']);
    expect(readOnly.checks.readStore).to.deep.equal({ ok: false, error: 'ReadStoreUnavailable' });
    readDb.pragma('query_only = OFF');
    expect((await readyOf(service!)).status).to.equal(200);

    fillSqlite(readDb);
    const full = await readyOf(service!);
    expect(full.failed).to.deep.equal(['readStore']);
    expect(full.checks.readStore).to.deep.equal({ ok: false, error: 'ReadStoreUnavailable' });
    readDb.pragma(`max_page_count = ${NO_PAGE_LIMIT}`);
    expect((await readyOf(service!)).status).to.equal(200);
  });

  it('answers 503 naming blobStore when the blob store cannot write bytes (ENOSPC), and 200 once space is back', async function () {
    await blobs.fill();
    const ready = await readyOf(service!);
    expect(ready.status).to.equal(503);
    expect(ready.failed).to.deep.equal(['blobStore']);
    expect(ready.checks.blobStore).to.deep.equal({ ok: false, error: 'BlobStoreUnavailable' });
    blobs.free();
    expect((await readyOf(service!)).status).to.equal(200);
  });
});

describe('readiness and the free-disk floor', function () {
  it('answers 503 naming diskSpace, with the free bytes and the floor, when the data directory has less free than MIN_FREE_DISK_BYTES', async function () {
    const floor = 2 ** 52;
    const service = await startTestService({ MIN_FREE_DISK_BYTES: String(floor) });
    try {
      const res = await fetch(`${service.url}/ready`);
      expect(res.status).to.equal(503);
      const body = await res.json();
      expect(body.failed).to.deep.equal(['diskSpace']);
      expect(body.checks.diskSpace.ok).to.equal(false);
      expect(body.checks.diskSpace.min).to.equal(floor);
      expect(body.checks.diskSpace.free).to.be.a('number').and.to.be.below(floor);
    } finally {
      await service.close();
    }
  });
});

describe('readiness and read models ahead of the event store', function () {
  it('fails projectorLag naming the read models whose checkpoint is beyond the head (an older event store put back), not only those behind', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'ready-ahead-'));
    const eventStore = openSqliteEventStore({ path: join(dir, 'events.db') });
    const readStore = openSqliteReadStore({ path: join(dir, 'read.db') });
    const blobStore = await openFsBlobStore({ root: join(dir, 'blobs') });
    try {
      await eventStore.append(
        streamName('probe-1'),
        [{ id: randomUUID(), type: 'OpsProbe', data: {}, metadata: { correlationId: 'test', schemaVersion: 1 } }],
        'no_stream',
      );
      const readiness = createReadiness({
        eventStore,
        readStore,
        blobStore,
        projectorLag: () => projectorLag(eventStore, readStore, [txStatusProjection]),
        maxLag: 10,
      });
      await readStore.commit([], [{ name: checkpointOf(txStatusProjection), position: 1n }]);
      expect((await readiness.check()).checks.projectorLag).to.deep.equal({ ok: true, behind: 0, max: 10 });

      await readStore.commit([], [{ name: checkpointOf(txStatusProjection), position: 40n }]);
      const report = await readiness.check();
      expect(report.failed).to.deep.equal(['projectorLag']);
      expect(report.checks.projectorLag).to.deep.equal({ ok: false, behind: 0, max: 10, ahead: ['tx-status_v1'] });
    } finally {
      await Promise.all([eventStore.close(), readStore.close(), blobStore.close()]);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
