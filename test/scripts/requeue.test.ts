import { expect } from 'chai';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { toNewEvent, type DomainEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { runScript } from '../support/runScript.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const [failedA, failedB, waiting, damaged, unknown] = [itemId(1), itemId(2), itemId(3), itemId(4), itemId(5)];
const failure = (id: string): DomainEvent => ({ type: 'DataItemFailed', data: { id, attempts: 3, reason: '3 bundles dropped', timestamp: T0 + 1 } });

/** A data directory whose event store holds two FAILED items, one waiting for a bundle and one damaged. */
async function dataDirWithFailures(root: string): Promise<string> {
  const dataDir = join(root, 'data');
  await mkdir(dataDir);
  const eventStore = openSqliteEventStore({ path: join(dataDir, 'events.db') });
  const stories: [string, DomainEvent[]][] = [
    [failedA, [dataItemAccepted(failedA, { timestamp: T0 }), failure(failedA)]],
    [failedB, [dataItemAccepted(failedB, { timestamp: T0 }), failure(failedB)]],
    [waiting, [dataItemAccepted(waiting, { timestamp: T0 })]],
    [
      damaged,
      [
        dataItemAccepted(damaged, { timestamp: T0 }),
        { type: 'DataItemDamaged', data: { id: damaged, blobKey: `items/${damaged}`, found: 'missing', timestamp: T0 + 1 } },
      ],
    ],
  ];
  try {
    for (const [id, events] of stories) {
      await eventStore.append(
        dataItemStream(id as DataItemId),
        events.map((e) => toNewEvent(e, newEventId(), { correlationId: 'spec' })),
        'no_stream',
      );
    }
  } finally {
    await eventStore.close();
  }
  return dataDir;
}

async function storedTypes(dataDir: string, id: string): Promise<{ type: string; data: Record<string, unknown>; userAgent?: string }[]> {
  const eventStore = openSqliteEventStore({ path: join(dataDir, 'events.db') });
  try {
    const events = [];
    for await (const e of eventStore.readStream(dataItemStream(id as DataItemId))) {
      events.push({ type: e.type, data: e.data as Record<string, unknown>, ...(e.metadata.userAgent ? { userAgent: e.metadata.userAgent } : {}) });
    }
    return events;
  } finally {
    await eventStore.close();
  }
}

describe('npm run requeue', function () {
  this.timeout(120_000);
  let root: string;
  let dataDir: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'requeue-cli-'));
    dataDir = await dataDirWithFailures(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const requeue = (args: string[]) => runScript('requeue', args, { DATA_DIR: dataDir });

  it('requeues the FAILED items named, recording who and why, and says so (exit 0); `history` shows it', async () => {
    const result = await requeue([failedA, failedB, '--reason', 'gateway healed', '--by', 'alice']);
    expect(result).to.deep.equal({
      code: 0,
      stdout:
        `requeued ${failedA} (it had failed: 3 bundles dropped); it waits for the next bundle\n` +
        `requeued ${failedB} (it had failed: 3 bundles dropped); it waits for the next bundle\n`,
      stderr: '',
    });
    const [, , requeued] = await storedTypes(dataDir, failedA);
    expect(requeued).to.deep.include({ type: 'DataItemRequeued', userAgent: 'requeue-cli' });
    expect(requeued!.data).to.deep.include({ by: 'alice', reason: 'gateway healed', previousFailure: '3 bundles dropped', previousAttempts: 3 });
    const history = await runScript('history', [failedA], { DATA_DIR: dataDir });
    expect(history.code, history.stderr).to.equal(0);
    expect(history.stdout).to.include('DataItemRequeued');
    expect(history.stdout).to.include('requeued by alice: gateway healed (it had failed after 3 bundle attempts: 3 bundles dropped)');
  });

  it('does nothing for an item already requeued, and says by whom (exit 0)', async () => {
    await requeue([failedA, '--reason', 'gateway healed', '--by', 'alice']);
    const again = await requeue([failedA, '--reason', 'once more', '--by', 'bob']);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.match(new RegExp(`^${failedA} was already requeued by alice at 20\\d\\d-.*Z \\(gateway healed\\): nothing to do\\n$`));
    expect((await storedTypes(dataDir, failedA)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemFailed', 'DataItemRequeued']);
  });

  it('refuses an item not FAILED, a damaged one and an unknown one (exit 1), after requeuing the others', async () => {
    const result = await requeue([waiting, failedA, damaged, unknown, '--reason', 'r', '--by', 'alice']);
    expect(result).to.deep.equal({
      code: 1,
      stdout: `requeued ${failedA} (it had failed: 3 bundles dropped); it waits for the next bundle\n`,
      stderr: `error: ${waiting}: Data item not failed\nerror: ${damaged}: Data item damaged: upload it again\nerror: ${unknown}: TX doesn't exist\n`,
    });
    expect((await storedTypes(dataDir, waiting)).map((e) => e.type)).to.deep.equal(['DataItemAccepted']);
  });

  it('--all-failed requeues every FAILED item but the damaged ones, which it names as needing a new upload', async () => {
    const result = await requeue(['--all-failed', '--reason', 'gateway healed', '--by', 'alice']);
    expect(result).to.deep.equal({
      code: 0,
      stdout:
        `requeued ${failedA} (it had failed: 3 bundles dropped); it waits for the next bundle\n` +
        `requeued ${failedB} (it had failed: 3 bundles dropped); it waits for the next bundle\n` +
        `${damaged}: damaged (its stored bytes are not the accepted ones), not requeued: upload the same item again to repair it\n` +
        '2 requeued; 1 damaged, waiting for a new upload\n',
      stderr: '',
    });
    const second = await requeue(['--all-failed', '--reason', 'again', '--by', 'alice']);
    expect(second.stdout).to.equal(
      'no item out of bundle attempts to requeue\n' +
        `${damaged}: damaged (its stored bytes are not the accepted ones), not requeued: upload the same item again to repair it\n` +
        '0 requeued; 1 damaged, waiting for a new upload\n',
    );
  });

  it('exits 2 with the usage for a bad command line: no reason, no item, an id of another shape, ids with --all-failed', async () => {
    for (const args of [[failedA], ['--reason', 'r'], ['not-an-id', '--reason', 'r'], ['--all-failed', failedA, '--reason', 'r']]) {
      const result = await requeue(args);
      expect(result.code, args.join(' ')).to.equal(2);
      expect(result.stderr, args.join(' ')).to.include('usage: npm run requeue');
    }
    expect((await storedTypes(dataDir, failedA)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemFailed']);
  });
});
