import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { DuplicateEventId } from '../../src/adapters/sqlite/eventStoreAppend.js';
import { CommitGate, CRASH_EXIT_CODE } from '../support/commitGate.js';
import { openSqliteEventStoreWithConnection } from '../support/sqliteEventStoreConnection.js';
import { AppendOutcomeUnknown, EventStoreUnavailable, WrongExpectedRevision, type NewEvent } from '../../src/ports/eventStore.js';
import { collect, newEvent, summary, testStreams } from './contractSupport.js';
import { eventually } from '../support/eventually.js';

/** settles to its outcome without throwing, and tells whether it has settled yet */
function watch<T>(promise: Promise<T>) {
  const state = { settled: false, outcome: undefined as PromiseSettledResult<T> | undefined };
  const settled = Promise.allSettled([promise]).then(([outcome]) => {
    state.settled = true;
    state.outcome = outcome;
    return outcome!;
  });
  return { state, settled };
}

const reasonOf = (outcome: PromiseSettledResult<unknown>) => (outcome.status === 'rejected' ? (outcome.reason as Error) : undefined);

describe('SQLite event store: the writer worker', function () {
  this.timeout(120_000);
  let dir: string;
  let files = 0;
  const newPath = () => join(dir, `events-${++files}.sqlite`);
  let store: SqliteEventStore | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'event-store-writer-'));
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe('while a commit waits on the disk', () => {
    let server: Server;
    beforeEach(async () => {
      server = createServer((_req, res) => res.end('pong')).listen(0, '127.0.0.1');
      await once(server, 'listening');
    });
    afterEach(() => server.close());

    it('answers an HTTP request and runs timers while an append waits for its commit, and settles the append only after the commit', async () => {
      const gate = new CommitGate();
      store = openSqliteEventStore({ path: newPath(), startWriter: gate.startWriter });
      const { a } = testStreams('a');
      const append = watch(store.append(a, [newEvent('A1')], 'no_stream'));
      // the worker holds the transaction at the gate, as a slow fsync would
      await eventually(
        () => gate.arrivals(),
        (n) => n === 1,
        'a commit at the gate',
        60_000,
        5,
      );
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await res.text()).to.equal('pong');
      expect(append.state.settled).to.equal(false);
      // not committed: this thread's reads do not see it
      expect(await store.headPosition()).to.equal(0n);
      gate.open();
      const outcome = await append.settled;
      expect(outcome.status).to.equal('fulfilled');
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`]);
    });

    it('writes the appends that arrive while a group is in the worker as the next group', async () => {
      const gate = new CommitGate();
      store = openSqliteEventStore({ path: newPath(), startWriter: gate.startWriter });
      const { a, b, c } = testStreams('a', 'b', 'c');
      const first = store.append(a, [newEvent('A1')], 'no_stream');
      await eventually(
        () => gate.arrivals(),
        (n) => n === 1,
        'a commit at the gate',
        60_000,
        5,
      );
      const later = [store.append(b, [newEvent('B1')], 'no_stream'), store.append(c, [newEvent('C1')], 'no_stream')];
      // another turn of the event loop: they still wait for the group in the worker
      await new Promise((resolve) => setImmediate(resolve));
      expect(store.stats()).to.deep.equal({ appends: 1, transactions: 1 });
      gate.open();
      await Promise.all([first, ...later]);
      expect(store.stats()).to.deep.equal({ appends: 3, transactions: 2 });
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`, `${b}:0:B1`, `${c}:0:C1`]);
    });
  });

  describe('a commit delay while appends are on their way (groupWait)', () => {
    /**
     * What was posted to the worker before now has been answered: a group posted in the turns just
     * gone (a setImmediate) reaches the worker before this probe, which is answered after it.
     */
    const workerCaughtUp = async (s: SqliteEventStore) => {
      await new Promise((resolve) => setImmediate(resolve));
      await s.probeWrite();
    };

    it('writes an append at once when no other is on its way, however long the delay', async () => {
      // a delay of ten minutes: an append held for it would time the test out
      store = openSqliteEventStore({ path: newPath(), groupWait: { ms: 600_000, appendsComing: () => 0 } });
      const { a, b } = testStreams('a', 'b');
      await store.append(a, [newEvent('A1')], 'no_stream');
      await store.append(b, [newEvent('B1')], 'no_stream');
      expect(store.stats()).to.deep.equal({ appends: 2, transactions: 2 });
    });

    it('holds a group while appends are on their way, and writes it with them in one transaction once none is', async () => {
      let coming = 2;
      store = openSqliteEventStore({ path: newPath(), groupWait: { ms: 600_000, appendsComing: () => coming } });
      const { a, b, c } = testStreams('a', 'b', 'c');
      const first = watch(store.append(a, [newEvent('A1')], 'no_stream'));
      await workerCaughtUp(store);
      expect(first.state.settled).to.equal(false);
      expect(store.pendingAppends()).to.equal(1);
      coming = 1;
      const second = watch(store.append(b, [newEvent('B1')], 'no_stream'));
      await workerCaughtUp(store);
      expect([first.state.settled, second.state.settled]).to.deep.equal([false, false]);
      expect(store.stats()).to.deep.equal({ appends: 0, transactions: 0 });
      coming = 0;
      const third = store.append(c, [newEvent('C1')], 'no_stream');
      await Promise.all([first.settled, second.settled, third]);
      expect([reasonOf(first.state.outcome!), reasonOf(second.state.outcome!)]).to.deep.equal([undefined, undefined]);
      expect(store.stats()).to.deep.equal({ appends: 3, transactions: 1 });
      expect(store.pendingAppends()).to.equal(0);
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`, `${b}:0:B1`, `${c}:0:C1`]);
    });

    it('holds the group that forms while another is in the worker, once that one is answered, until the appends on their way come', async () => {
      let coming = 0;
      const gate = new CommitGate();
      store = openSqliteEventStore({ path: newPath(), startWriter: gate.startWriter, groupWait: { ms: 600_000, appendsComing: () => coming } });
      const { a, b, c, d } = testStreams('a', 'b', 'c', 'd');
      const first = store.append(a, [newEvent('A1')], 'no_stream');
      await eventually(
        () => gate.arrivals(),
        (n) => n === 1,
        'a commit at the gate',
        60_000,
        5,
      );
      coming = 2;
      const queued = [watch(store.append(b, [newEvent('B1')], 'no_stream')), watch(store.append(c, [newEvent('C1')], 'no_stream'))];
      gate.open();
      await first;
      await workerCaughtUp(store);
      expect(queued.map((q) => q.state.settled)).to.deep.equal([false, false]);
      expect(store.stats()).to.deep.equal({ appends: 1, transactions: 1 });
      expect(store.pendingAppends()).to.equal(2);
      coming = 0;
      await Promise.all([...queued.map((q) => q.settled), store.append(d, [newEvent('D1')], 'no_stream')]);
      expect(store.stats()).to.deep.equal({ appends: 4, transactions: 2 });
    });

    it('writes a held group when the delay is over, when the appends said to be on their way never come', async () => {
      store = openSqliteEventStore({ path: newPath(), groupWait: { ms: 20, appendsComing: () => 1 } });
      const { a } = testStreams('a');
      await store.append(a, [newEvent('A1')], 'no_stream');
      expect(store.stats()).to.deep.equal({ appends: 1, transactions: 1 });
    });

    it('writes a held group at close, and answers its appends', async () => {
      const path = newPath();
      const closing = openSqliteEventStore({ path, groupWait: { ms: 600_000, appendsComing: () => 1 } });
      const { a } = testStreams('a');
      const held = watch(closing.append(a, [newEvent('A1')], 'no_stream'));
      await workerCaughtUp(closing);
      expect(held.state.settled).to.equal(false);
      await closing.close();
      expect(reasonOf(await held.settled)).to.equal(undefined);
      store = openSqliteEventStore({ path });
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`]);
    });
    it('writes at close, without holding it, the group queued behind one in the worker', async () => {
      let coming = 0;
      const gate = new CommitGate();
      const path = newPath();
      const closing = openSqliteEventStore({ path, startWriter: gate.startWriter, groupWait: { ms: 600_000, appendsComing: () => coming } });
      const { a, b } = testStreams('a', 'b');
      const first = closing.append(a, [newEvent('A1')], 'no_stream');
      await eventually(
        () => gate.arrivals(),
        (n) => n === 1,
        'a commit at the gate',
        60_000,
        5,
      );
      coming = 1;
      const queued = closing.append(b, [newEvent('B1')], 'no_stream');
      const closed = closing.close();
      gate.open();
      await Promise.all([first, queued, closed]);
      expect(closing.stats()).to.deep.equal({ appends: 2, transactions: 2 });
      store = openSqliteEventStore({ path });
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`, `${b}:0:B1`]);
    });
  });

  describe('errors', () => {
    /** the same calls on a file (worker) and in memory (this thread): the errors must be alike */
    async function refusals(path: string) {
      const events = openSqliteEventStore({ path });
      try {
        const { a, b } = testStreams('a', 'b');
        const shared: NewEvent = newEvent('One', { n: 1 }, '6f1d6c1e-8b1a-4f43-9d6a-2f7c3b5e9a01');
        await events.append(a, [shared], 'no_stream');
        const conflict = await events.append(a, [newEvent('Two')], 'no_stream').catch((e: unknown) => e);
        const duplicate = await events.append(b, [shared], 'no_stream').catch((e: unknown) => e);
        return { conflict, duplicate, a };
      } finally {
        await events.close();
      }
    }

    it('answers WrongExpectedRevision and DuplicateEventId with their fields, as the in-thread writer does', async () => {
      const worker = await refusals(newPath());
      const inThread = await refusals(':memory:');
      const conflict = worker.conflict as WrongExpectedRevision;
      expect(WrongExpectedRevision.is(conflict)).to.equal(true);
      expect(conflict).to.be.instanceOf(WrongExpectedRevision);
      expect([conflict.stream, conflict.expected, conflict.actual]).to.deep.equal([worker.a, 'no_stream', 0n]);
      expect(conflict.message).to.equal(`wrong expected revision on ${worker.a}: expected no_stream, actual 0`);
      expect((inThread.conflict as Error).message).to.equal(`wrong expected revision on ${inThread.a}: expected no_stream, actual 0`);
      const duplicate = worker.duplicate as DuplicateEventId;
      expect(duplicate).to.be.instanceOf(DuplicateEventId);
      expect([duplicate.eventId, duplicate.storedIn]).to.deep.equal(['6f1d6c1e-8b1a-4f43-9d6a-2f7c3b5e9a01', worker.a]);
      expect(duplicate.message).to.equal((inThread.duplicate as Error).message.replace(inThread.a, worker.a));
    });

    it('answers EventStoreUnavailable with the message and a SqliteError cause of the code, for an append and a probe', async () => {
      const opened = openSqliteEventStoreWithConnection({ path: newPath() });
      store = opened.store;
      const { a } = testStreams('a');
      opened.db.pragma('query_only = ON');
      for (const error of [await store.append(a, [newEvent('A1')], 'no_stream').catch((e: unknown) => e), await store.probeWrite().catch((e: unknown) => e)]) {
        expect(EventStoreUnavailable.is(error)).to.equal(true);
        expect(error).to.be.instanceOf(EventStoreUnavailable);
        expect((error as Error).message).to.equal('the event store file cannot be written or read now (SQLITE_READONLY)');
        const cause = (error as Error).cause as InstanceType<typeof Database.SqliteError>;
        expect(cause).to.be.instanceOf(Database.SqliteError);
        expect(cause.code).to.equal('SQLITE_READONLY');
        expect(cause.message).to.equal('attempt to write a readonly database');
      }
    });
  });

  describe('a writer that dies', () => {
    it('fails the group it held with AppendOutcomeUnknown and the appends queued behind it with EventStoreUnavailable, stores none of them, and writes again with a new worker', async () => {
      const path = newPath();
      const gate = new CommitGate();
      store = openSqliteEventStore({ path, startWriter: gate.startWriter });
      const { a, b, c } = testStreams('a', 'b', 'c');
      const answered = store.append(a, [newEvent('A1')], 'no_stream');
      await eventually(
        () => gate.arrivals(),
        (n) => n === 1,
        'a commit at the gate',
        60_000,
        5,
      );
      gate.open();
      // answered before the crash: it stays
      await answered;
      gate.shut();
      const inWorker = watch(store.append(b, [newEvent('B1')], 'no_stream'));
      await eventually(
        () => gate.arrivals(),
        (n) => n === 2,
        'a second commit at the gate',
        60_000,
        5,
      );
      const queued = watch(store.append(c, [newEvent('C1')], 'no_stream'));
      await new Promise((resolve) => setImmediate(resolve));
      gate.crash();
      const [lost, behind] = [reasonOf(await inWorker.settled), reasonOf(await queued.settled)];
      expect(AppendOutcomeUnknown.is(lost)).to.equal(true);
      expect(lost!.message).to.equal(`the event store writer stopped (exit code ${CRASH_EXIT_CODE})`);
      expect(EventStoreUnavailable.is(behind)).to.equal(true);
      expect(AppendOutcomeUnknown.is(behind)).to.equal(false);
      expect(behind!.message).to.equal(`the event store writer stopped (exit code ${CRASH_EXIT_CODE})`);
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`]);
      // a new worker takes the next append (the gate lets it through after one crash)
      expect((await store.append(b, [newEvent('B1')], 'no_stream')).nextRevision).to.equal(0n);
      expect(summary(await collect(store.readAll()))).to.deep.equal([`${a}:0:A1`, `${b}:0:B1`]);
    });

    it('fails an append with EventStoreUnavailable, not AppendOutcomeUnknown, when the worker cannot open the file', async () => {
      const place = join(dir, 'gone');
      mkdirSync(place);
      store = openSqliteEventStore({ path: join(place, 'events.sqlite') });
      rmSync(place, { recursive: true, force: true });
      const { a } = testStreams('a');
      const error = await store.append(a, [newEvent('A1')], 'no_stream').catch((e: unknown) => e);
      expect(EventStoreUnavailable.is(error)).to.equal(true);
      expect(AppendOutcomeUnknown.is(error)).to.equal(false);
      expect((error as Error).message).to.equal('the event store writer stopped (exit code 1: Cannot open database because the directory does not exist)');
    });

    it('fails a probe write in flight with EventStoreUnavailable', async () => {
      const gate = new CommitGate();
      store = openSqliteEventStore({ path: newPath(), startWriter: gate.startWriter });
      const { a } = testStreams('a');
      const inWorker = watch(store.append(a, [newEvent('A1')], 'no_stream'));
      await eventually(
        () => gate.arrivals(),
        (n) => n === 1,
        'a commit at the gate',
        60_000,
        5,
      );
      const probe = watch(store.probeWrite());
      gate.crash();
      expect(AppendOutcomeUnknown.is(reasonOf(await inWorker.settled))).to.equal(true);
      const failure = reasonOf(await probe.settled);
      expect(EventStoreUnavailable.is(failure)).to.equal(true);
      await store.probeWrite();
    });
  });
});
