import { expect } from 'chai';
import { MongoClient, MongoServerError, type ClientSession, type Collection } from 'mongodb';
import { startMongoStandIn, type MongoStandIn } from '../support/mongoStandIn.js';

// The stand-in's transactions (test/support/mongoStandInStorage.ts, mongoStandInTransactions.ts) keep
// the rules of a real server that the MongoDB adapters depend on: each case here is what a replica set
// does (jstests/core/txns/write_conflicts_with_non_txns.js among others), through the real driver.
describe('MongoDB stand-in transactions', function () {
  let standIn: MongoStandIn;
  let client: MongoClient;
  let counters: Collection<{ _id: string; n: number; by?: string }>;
  const sessions: ClientSession[] = [];
  let run = 0;

  const session = (): ClientSession => {
    const started = client.startSession();
    sessions.push(started);
    return started;
  };
  const failureOf = async (promise: Promise<unknown>): Promise<MongoServerError> => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof MongoServerError) return error;
      throw error;
    }
    throw new Error('expected the server to refuse it');
  };

  before(async function () {
    standIn = await startMongoStandIn();
    client = new MongoClient(standIn.url);
  });
  after(async function () {
    await client?.close();
    await standIn?.stop();
  });
  beforeEach(async function () {
    counters = client.db(`standin_${run++}`).collection('counters');
    await counters.insertMany([
      { _id: 'x', n: 0 },
      { _id: 'z', n: 0 },
    ]);
  });
  afterEach(async function () {
    for (const started of sessions.splice(0)) {
      if (started.inTransaction()) await started.abortTransaction().catch(() => undefined);
      await started.endSession();
    }
    await counters.db.dropDatabase();
  });

  it('refuses a second transaction writing a document the first wrote with WriteConflict, labelled TransientTransactionError', async function () {
    const first = session();
    const second = session();
    first.startTransaction();
    second.startTransaction();
    await counters.updateOne({ _id: 'x' }, { $set: { by: 'first' } }, { session: first });
    const conflict = await failureOf(counters.updateOne({ _id: 'x' }, { $set: { by: 'second' } }, { session: second }));
    expect([conflict.code, conflict.codeName, conflict.hasErrorLabel('TransientTransactionError')]).to.deep.equal([112, 'WriteConflict', true]);
    // the conflict aborted the second transaction; the first, which wrote first, commits
    expect((await failureOf(second.commitTransaction())).code).to.equal(251);
    await first.commitTransaction();
    expect(await counters.findOne({ _id: 'x' })).to.deep.equal({ _id: 'x', n: 0, by: 'first' });
  });

  it('refuses a transaction writing a document committed by another after its snapshot', async function () {
    const late = session();
    late.startTransaction();
    expect(await counters.findOne({ _id: 'x' }, { session: late })).to.deep.equal({ _id: 'x', n: 0 });
    await counters.updateOne({ _id: 'x' }, { $set: { by: 'outside' } });
    const conflict = await failureOf(counters.updateOne({ _id: 'x' }, { $set: { by: 'late' } }, { session: late }));
    expect([conflict.code, conflict.hasErrorLabel('TransientTransactionError')]).to.deep.equal([112, true]);
    expect(await counters.findOne({ _id: 'x' })).to.deep.equal({ _id: 'x', n: 0, by: 'outside' });
  });

  it('rolls an aborted transaction back: updates, inserts and deletes leave no trace', async function () {
    const aborted = session();
    aborted.startTransaction();
    await counters.updateOne({ _id: 'x' }, { $inc: { n: 5 } }, { session: aborted });
    await counters.insertOne({ _id: 'y', n: 1 }, { session: aborted });
    await counters.deleteOne({ _id: 'z' }, { session: aborted });
    await aborted.abortTransaction();
    expect(await counters.find().sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 'x', n: 0 },
      { _id: 'z', n: 0 },
    ]);
  });

  it('shows no reader outside a transaction its writes before it commits, and all of them after', async function () {
    const writer = session();
    writer.startTransaction();
    await counters.updateOne({ _id: 'x' }, { $inc: { n: 1 } }, { session: writer });
    await counters.insertOne({ _id: 'y', n: 1 }, { session: writer });
    expect(await counters.find({}, { session: writer }).sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 'x', n: 1 },
      { _id: 'y', n: 1 },
      { _id: 'z', n: 0 },
    ]);
    expect(await counters.find().sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 'x', n: 0 },
      { _id: 'z', n: 0 },
    ]);
    await writer.commitTransaction();
    expect(await counters.find().sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 'x', n: 1 },
      { _id: 'y', n: 1 },
      { _id: 'z', n: 0 },
    ]);
  });

  it('reads, in a transaction, the snapshot it began with', async function () {
    const reader = session();
    reader.startTransaction();
    expect(await counters.findOne({ _id: 'x' }, { session: reader })).to.deep.equal({ _id: 'x', n: 0 });
    await counters.updateOne({ _id: 'x' }, { $set: { n: 7 } });
    await counters.deleteOne({ _id: 'z' });
    expect(await counters.find({}, { session: reader }).sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 'x', n: 0 },
      { _id: 'z', n: 0 },
    ]);
  });

  it('lands both of two racing read-then-write increments: withTransaction runs the refused one again', async function () {
    // both read before either writes: without write conflicts, both would write 1
    let reads = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    const increment = (started: ClientSession) =>
      started.withTransaction(async () => {
        const { n } = (await counters.findOne({ _id: 'x' }, { session: started }))!;
        if (++reads === 2) bothRead();
        await barrier;
        await counters.updateOne({ _id: 'x' }, { $set: { n: n + 1 } }, { session: started });
      });
    await Promise.all([increment(session()), increment(session())]);
    expect(await counters.findOne({ _id: 'x' })).to.deep.equal({ _id: 'x', n: 2 });
    expect(reads).to.be.greaterThan(2);
  });

  it('drops the open transaction of a session that ends', async function () {
    const ended = session();
    ended.startTransaction();
    await counters.updateOne({ _id: 'x' }, { $inc: { n: 1 } }, { session: ended });
    await client.db('admin').command({ endSessions: [ended.id] });
    // held until the transaction ends, were it still open
    await counters.updateOne({ _id: 'x' }, { $inc: { n: 10 } });
    expect(await counters.findOne({ _id: 'x' })).to.deep.equal({ _id: 'x', n: 10 });
  });

  it('holds a write outside a transaction to a document the transaction wrote until it ends, then applies it', async function () {
    const holder = session();
    holder.startTransaction();
    await counters.updateOne({ _id: 'x' }, { $inc: { n: 1 } }, { session: holder });
    let done = false;
    const outside = counters.updateOne({ _id: 'x' }, { $inc: { n: 10 } }).then(() => (done = true));
    // a later read, answered while the write waits
    expect(await counters.findOne({ _id: 'x' })).to.deep.equal({ _id: 'x', n: 0 });
    expect(done).to.equal(false);
    await holder.commitTransaction();
    await outside;
    expect(await counters.findOne({ _id: 'x' })).to.deep.equal({ _id: 'x', n: 11 });
  });
});
