import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { DuplicateEventId } from '../../src/adapters/sqlite/eventStoreAppend.js';
import { appendSize, AppendTooLarge, EventStoreUnavailable, MAX_APPEND_BYTES, streamName, WrongExpectedRevision } from '../../src/ports/eventStore.js';
import { eventStoreContract } from './contract.js';
import { fillSqlite } from '../support/fullSqlite.js';
import { openSqliteEventStoreWithConnection } from '../support/sqliteEventStoreConnection.js';
import { collect, expectConflict, inStreams, newEvent, nextEvents, summary, testStreams } from './contractSupport.js';

describe('SQLite event store', () => {
  let dir: string;
  let files = 0;
  const newPath = () => join(dir, `events-${++files}.sqlite`);

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'event-store-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  eventStoreContract('SQLite', async () => openSqliteEventStore({ path: newPath(), pollIntervalMs: 20 }), {
    freshStore: true,
  });

  describe('append size limit (EventStoreDB MaxAppendSize)', () => {
    let store: SqliteEventStore;
    beforeEach(() => {
      store = openSqliteEventStore({ path: newPath() });
    });
    afterEach(() => store.close());

    /** an event whose appendSize is exactly `size`: a string payload padded to it */
    function eventOfSize(type: string, size: number) {
      const event = newEvent(type, '');
      const padding = size - appendSize([event]);
      return { ...event, data: 'x'.repeat(padding) };
    }

    it('takes an append of exactly MAX_APPEND_BYTES, over several events', async () => {
      const { s } = testStreams('s');
      const events = [eventOfSize('Half', MAX_APPEND_BYTES / 2), eventOfSize('Half', MAX_APPEND_BYTES / 2)];
      expect(appendSize(events)).to.equal(1_048_576);
      expect((await store.append(s, events, 'no_stream')).nextRevision).to.equal(1n);
    });

    it('refuses an append one byte over with AppendTooLarge, writing none of its events', async () => {
      const { s, t } = testStreams('s', 't');
      const events = [eventOfSize('Half', MAX_APPEND_BYTES / 2), eventOfSize('Half', MAX_APPEND_BYTES / 2 + 1)];
      let refusal: unknown;
      await store.append(s, events, 'no_stream').catch((error: unknown) => (refusal = error));
      expect(refusal).to.be.instanceOf(AppendTooLarge);
      expect((refusal as AppendTooLarge).size).to.equal(1_048_577);
      expect((refusal as AppendTooLarge).message).to.equal(`append to ${s} of 1048577 bytes is over the limit of 1048576 bytes`);
      // counted as the server counts: UTF-8 bytes of the JSON, twice the type's length
      const wide = { ...newEvent('T', ''), data: 'é'.repeat(10) };
      expect(appendSize([wide])).to.equal(Buffer.byteLength(JSON.stringify(wide.metadata)) + 22 + 2);
      // the store goes on taking appends
      expect((await store.append(t, [newEvent('Small')], 'no_stream')).nextRevision).to.equal(0n);
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${t}:0:Small`]);
    });
  });

  describe('group commit', () => {
    let store: SqliteEventStore;
    beforeEach(() => {
      store = openSqliteEventStore({ path: newPath() });
    });
    afterEach(() => store.close());

    it('writes 100 appends issued in the same turn in one transaction', async () => {
      const { s } = testStreams('s');
      const streams = Array.from({ length: 100 }, (_, i) => streamName(`${s}-${i}`));
      const results = await Promise.all(streams.map((s) => store.append(s, [newEvent('Created')], 'no_stream')));
      expect(store.stats()).to.deep.equal({ appends: 100, transactions: 1 });
      expect(results.map((r) => r.nextRevision)).to.deep.equal(streams.map(() => 0n));
      expect(new Set(results.map((r) => r.position)).size).to.equal(100);
    });

    it('rejects only the conflicting append of a group', async () => {
      const { a, b, c } = testStreams('a', 'b', 'c');
      await store.append(a, [newEvent('A1')], 'no_stream');
      const outcomes = await Promise.allSettled([
        store.append(b, [newEvent('B1')], 'no_stream'),
        store.append(a, [newEvent('A-again')], 'no_stream'),
        store.append(c, [newEvent('C1')], 'no_stream'),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
      const conflict = (outcomes[1] as PromiseRejectedResult).reason as WrongExpectedRevision;
      expect(conflict).to.be.instanceOf(WrongExpectedRevision);
      expect(conflict.actual).to.equal(0n);
      expect(store.stats()).to.deep.equal({ appends: 4, transactions: 2 });
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`, `${b}:0:B1`, `${c}:0:C1`]);
    });

    it('applies appends to one stream in call order within a group', async () => {
      const { a } = testStreams('a');
      const outcomes = await Promise.allSettled([
        store.append(a, [newEvent('A1')], 'no_stream'),
        store.append(a, [newEvent('A2')], 0n),
        store.append(a, [newEvent('Late')], 'no_stream'),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected']);
      expect(store.stats().transactions).to.equal(1);
      expect(summary(await collect(store.readStream(a)))).to.deep.equal([`${a}:0:A1`, `${a}:1:A2`]);
    });

    it('rejects an event that is not JSON without failing the rest of the group', async () => {
      const { a, b } = testStreams('a', 'b');
      const outcomes = await Promise.allSettled([store.append(a, [newEvent('Bad', { n: 1n })], 'no_stream'), store.append(b, [newEvent('Good')], 'no_stream')]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'fulfilled']);
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${b}:0:Good`]);
    });
  });

  describe('event ids', () => {
    let store: SqliteEventStore;
    beforeEach(() => {
      store = openSqliteEventStore({ path: newPath() });
    });
    afterEach(() => store.close());

    it('refuses an event id already stored in another stream', async () => {
      const { a, b } = testStreams('a', 'b');
      const event = newEvent('One');
      await store.append(a, [event], 'no_stream');
      const error = await store.append(b, [event], 'no_stream').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DuplicateEventId);
      expect((error as DuplicateEventId).storedIn).to.equal(a);
    });

    it('refuses an event id of the stream appended again at another revision', async () => {
      const { a } = testStreams('a');
      const event = newEvent('One');
      await store.append(a, [event], 'no_stream');
      await store.append(a, [newEvent('Two')], 0n);
      await expectConflict(store.append(a, [event], 1n), { stream: a, expected: 1n, actual: 1n });
    });

    it('refuses one append carrying the same event id twice', async () => {
      const { a } = testStreams('a');
      const event = newEvent('One');
      const error = await store.append(a, [event, event], 'no_stream').catch((e: unknown) => e);
      expect((error as Error).message).to.equal(`event id ${event.id} appears twice in one append`);
    });
  });

  describe('file', () => {
    it('keeps the events when the file is opened again', async () => {
      const path = newPath();
      const { a } = testStreams('a');
      const first = openSqliteEventStore({ path });
      const appended = await first.append(a, [newEvent('A1', { size: 7 }), newEvent('A2')], 'no_stream');
      await first.close();
      const second = openSqliteEventStore({ path });
      try {
        const events = await collect(second.readStream(a));
        expect(summary(events)).to.deep.equal([`${a}:0:A1`, `${a}:1:A2`]);
        expect(events[0]!.data).to.deep.equal({ size: 7 });
        expect(await second.headPosition()).to.equal(appended.position);
      } finally {
        await second.close();
      }
    });

    it('uses write-ahead logging', async () => {
      const path = newPath();
      await openSqliteEventStore({ path }).close();
      const db = new Database(path, { readonly: true });
      try {
        expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
      } finally {
        db.close();
      }
    });

    it('writes the appends queued in the same turn before closing', async () => {
      const path = newPath();
      const { a } = testStreams('a');
      const store = openSqliteEventStore({ path });
      const appended = store.append(a, [newEvent('A1')], 'no_stream');
      await store.close();
      expect((await appended).nextRevision).to.equal(0n);
      const again = openSqliteEventStore({ path });
      expect(summary(await collect(again.readStream(a)))).to.deep.equal([`${a}:0:A1`]);
      await again.close();
    });
  });

  describe('a file that cannot be written', () => {
    let db: Database.Database;
    let store: SqliteEventStore;
    beforeEach(() => {
      ({ store, db } = openSqliteEventStoreWithConnection({ path: newPath() }));
    });
    afterEach(() => store.close());
    const causeOf = (error: unknown) => ((error as Error).cause as { code?: string } | undefined)?.code;

    it('fails a whole group with EventStoreUnavailable (SQLITE_FULL) when the file cannot grow, stores none of it, and appends again once it can', async () => {
      const { a, b } = testStreams('a', 'b');
      await store.append(a, [newEvent('A1')], 'no_stream');
      // the file may not grow past its pages now: what a full disk does to SQLite
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      const large = { padding: 'x'.repeat(64 * 1024) };
      const outcomes = await Promise.allSettled([store.append(a, [newEvent('A2', large)], 0n), store.append(b, [newEvent('B1', large)], 'no_stream')]);
      const reasons = outcomes.map((o) => (o.status === 'rejected' ? o.reason : o.status));
      expect(reasons.map((r) => (r as Error).name)).to.deep.equal(['EventStoreUnavailable', 'EventStoreUnavailable']);
      expect(reasons.map(causeOf)).to.deep.equal(['SQLITE_FULL', 'SQLITE_FULL']);
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`]);

      db.pragma('max_page_count = 1073741823');
      expect((await store.append(b, [newEvent('B1', large)], 'no_stream')).nextRevision).to.equal(0n);
    });

    it('takes a probe write (readiness) that changes neither the head nor $all, and fails it as an append fails when the file is full', async () => {
      const { a } = testStreams('a');
      await store.append(a, [newEvent('A1')], 'no_stream');
      const head = await store.headPosition();
      await store.probeWrite();
      expect(await store.headPosition()).to.equal(head);
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`]);
      // the free pages the probe left are taken too, as appends would take them
      fillSqlite(db);
      const error = await store.probeWrite().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(EventStoreUnavailable);
      expect(causeOf(error)).to.equal('SQLITE_FULL');
    });

    it('answers EventStoreUnavailable (SQLITE_READONLY) while the connection may not write, and appends again once it may', async () => {
      const { a } = testStreams('a');
      db.pragma('query_only = ON');
      const error = await store.append(a, [newEvent('A1')], 'no_stream').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(EventStoreUnavailable);
      expect(causeOf(error)).to.equal('SQLITE_READONLY');
      // reads still work
      expect(await store.headPosition()).to.equal(0n);
      db.pragma('query_only = OFF');
      expect((await store.append(a, [newEvent('A1')], 'no_stream')).nextRevision).to.equal(0n);
    });
  });

  describe('two instances on one file', () => {
    it('delivers appends made through one instance to a subscription of the other', async () => {
      const path = newPath();
      const writer = openSqliteEventStore({ path });
      const reader = openSqliteEventStore({ path, pollIntervalMs: 10 });
      const streams = testStreams('a');
      const subscription = reader.subscribeToAll({ after: 0n });
      try {
        const iterator = subscription[Symbol.asyncIterator]();
        await writer.append(streams.a, [newEvent('A1')], 'no_stream');
        const first = await nextEvents(iterator, 1, inStreams(streams));
        // Appended while the reader is idle: only its polling can find it.
        await writer.append(streams.a, [newEvent('A2')], 0n);
        const second = await nextEvents(iterator, 1, inStreams(streams));
        expect(summary([...first, ...second])).to.deep.equal([`${streams.a}:0:A1`, `${streams.a}:1:A2`]);
      } finally {
        await subscription.close();
        await reader.close();
        await writer.close();
      }
    });

    it('fails a whole group with EventStoreUnavailable while another connection holds the write lock', async () => {
      const path = newPath();
      const store = openSqliteEventStore({ path, busyTimeoutMs: 1 });
      const other = new Database(path);
      const { a, b } = testStreams('a', 'b');
      try {
        other.exec('BEGIN IMMEDIATE');
        const outcomes = await Promise.allSettled([store.append(a, [newEvent('A1')], 'no_stream'), store.append(b, [newEvent('B1')], 'no_stream')]);
        expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).name : o.status))).to.deep.equal([
          'EventStoreUnavailable',
          'EventStoreUnavailable',
        ]);
        other.exec('ROLLBACK');
        expect((await store.append(a, [newEvent('A1')], 'no_stream')).nextRevision).to.equal(0n);
      } finally {
        other.close();
        await store.close();
      }
    });

    it('checks expected revisions across instances', async () => {
      const path = newPath();
      const one = openSqliteEventStore({ path });
      const two = openSqliteEventStore({ path });
      const { a } = testStreams('a');
      try {
        await one.append(a, [newEvent('A1')], 'no_stream');
        await expectConflict(two.append(a, [newEvent('A1-other')], 'no_stream'), {
          stream: a,
          expected: 'no_stream',
          actual: 0n,
        });
      } finally {
        await one.close();
        await two.close();
      }
    });
  });
});
