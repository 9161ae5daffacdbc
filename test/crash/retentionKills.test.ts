import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import type { DataItem } from 'arbundles';
import { startServiceProcess, type ServiceProcess } from '../../scripts/lib/serviceProcess.js';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from '../support/arlocal.js';
import { eventually } from '../support/eventually.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { runScript } from '../support/runScript.js';
import { storedBlob } from '../support/storedBlob.js';
import { collectionOf, retentionDueProjection } from '../../projections/index.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';

/**
 * A retention pass of the built service (dist/, as `npm start` runs it) SIGKILLed between recording
 * an item's retirement and deleting its blob: strace, attached to the service, sends SIGKILL as the
 * service enters the `unlink` of that one blob (the kernel ends the process before the call runs,
 * so the event is on the stream and the file still there). Restarted on the same DATA_DIR, the
 * service finishes the pass: every item is retired exactly once (one `ItemBytesRetired` on its
 * stream), its blob gone, `GET /:id` byte for byte from arlocal, and `npm run audit` clean.
 */
describe('retention: SIGKILL between ItemBytesRetired and the deletion', function () {
  this.timeout(300_000);
  let arlocal: Arlocal;
  const dirs: string[] = [];
  const running = new Set<ServiceProcess>();

  before(async () => {
    arlocal = await startArlocal();
  });
  after(async () => {
    for (const service of running) await service.kill();
    await arlocal?.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>) => {
    const service = await startServiceProcess(env);
    running.add(service);
    service.process.once('exit', () => running.delete(service));
    return service;
  };

  /** the event types of each item's stream, read from the data directory's event store */
  const retirementsOf = async (dataDir: string, items: DataItem[]): Promise<number[]> => {
    const events = openSqliteEventStore({ path: join(dataDir, 'events.db') });
    try {
      const counts: number[] = [];
      for (const item of items) {
        let retired = 0;
        for await (const event of events.readStream(dataItemStream(item.id as DataItemId))) if (event.type === 'ItemBytesRetired') retired += 1;
        counts.push(retired);
      }
      return counts;
    } finally {
      await events.close();
    }
  };
  const blobsOf = async (dataDir: string, items: DataItem[]) => Promise.all(items.map(async (i) => (await storedBlob(dataDir, `items/${i.id}`)) !== undefined));

  /**
   * `count` items accepted into one bundle, the service killed as its retention pass enters the
   * deletion of the blob of the item at `target` in the pass's order (one permanence time: by id);
   * answers the items in that order, and the data directory's settings
   */
  async function killedAtDeletion(count: number, target: number) {
    const dataDir = await mkdtemp(join(tmpdir(), 'retention-kill-'));
    dirs.push(dataDir);
    const env = {
      DATA_DIR: dataDir,
      WALLET_FILE: SERVICE_WALLET_FILE,
      GATEWAY_URL: arlocal.url,
      ...ARLOCAL_HEIGHT_SETTINGS,
      // one bundle of all the items: sent once full
      BUNDLE_MAX_ITEMS: String(count),
      BUNDLE_MAX_WAIT_MS: '86400000',
      BUNDLER_INTERVAL_MS: '200',
      CONFIRMATIONS: '2',
      FREE_UPLOAD_LIMIT_BYTES: '1048576',
      // every blob a file of its own, whose unlink strace can stop
      SMALL_BLOB_MAX_BYTES: '0',
      RETAIN_PERMANENT_BYTES_MS: '0',
      RETAIN_INTERVAL_MS: '100',
      // the blob the event disowns is the orphan sweep's (docs/decisions.md): the shortest grace, and
      // a lease (3 intervals) the killed process's hold does not keep from its successor for long
      BLOB_SWEEP_GRACE_MS: '1000',
      BLOB_SWEEP_INTERVAL_MS: '200',
    };
    const first = await start(env);
    await arlocal.mint((await (await fetch(`${first.url}/info`)).json()).addresses.arweave, '100000000000000000');
    const items = await Promise.all(
      Array.from({ length: count }, (_, i) => signedItem(i % 2 ? signers.ethereum() : signers.arweave(), `retired ${i} `.repeat(50 + i))),
    );
    items.sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const item of items) expect((await fetch(`${first.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    const blobPath = join(dataDir, 'blobs', 'items', items[target]!.id);
    expect(existsSync(blobPath), blobPath).to.equal(true);

    const strace = spawn(
      'strace',
      ['-f', '-e', 'trace=unlink,unlinkat', '-P', blobPath, '-e', 'inject=unlink,unlinkat:signal=SIGKILL', '-p', String(first.process.pid)],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let straceErr = '';
    strace.stderr.on('data', (d) => (straceErr += d));
    await eventually(
      async () => straceErr,
      (err) => err.includes(`Process ${first.process.pid} attached`),
      'strace attached to the service',
      30_000,
      50,
    );
    const killed = new Promise<void>((resolve) => first.process.once('exit', () => resolve()));
    let gone = false;
    void killed.then(() => (gone = true));
    await eventually(
      async () => {
        if (!gone) await arlocal.mine(1);
        return gone;
      },
      Boolean,
      `the service killed at the deletion of ${items[target]!.id} (${straceErr}) ${first.stderr()}`,
      180_000,
    );
    expect(first.process.signalCode).to.equal('SIGKILL');
    return { env, dataDir, items };
  }

  /** restarted on the same data directory: every item retired once, blob gone, read from arlocal, audit clean */
  async function resumes(env: Record<string, string>, dataDir: string, items: DataItem[]) {
    const second = await start(env);
    await eventually(
      () => blobsOf(dataDir, items),
      (there) => there.every((t) => !t),
      'every blob deleted after the restart',
      60_000,
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}; retired ${JSON.stringify(await retirementsOf(dataDir, items))}: ${second.stderr()}`);
    });
    expect(await retirementsOf(dataDir, items)).to.deep.equal(items.map(() => 1));
    // the blob whose deletion the kill cut is removed by the orphan sweep, which reads the event store, not
    // the read models: its retirement reaches the read models the reads consult once the restarted projector
    // catches up (in service, the sweep's grace, an hour by default, is far longer than that)
    for (const item of items) {
      const bytes = await eventually(
        async () => {
          const res = await fetch(`${second.url}/${item.id}`);
          return res.status === 200 ? Buffer.from(await res.arrayBuffer()) : res.status;
        },
        (got) => typeof got !== 'number',
        `GET /${item.id} from the gateway`,
        60_000,
      );
      expect(Buffer.from(bytes as Buffer).equals(Buffer.from(item.rawData)), item.id).to.equal(true);
    }
    await second.stop();
    const { code, stdout, stderr } = await runScript('audit', ['--json'], env);
    const report = JSON.parse(stdout || '{}') as { findings?: unknown[]; checked?: Record<string, number> };
    expect({ code, findings: report.findings }, stderr).to.deep.equal({ code: 0, findings: [] });
    expect(report.checked?.retiredItemBlobs).to.equal(items.length);
  }

  it('resumes a retirement killed after ItemBytesRetired was appended and before its blob was deleted', async () => {
    const { env, dataDir, items } = await killedAtDeletion(1, 0);
    // the event is recorded, the bytes still there
    expect(await retirementsOf(dataDir, items)).to.deep.equal([1]);
    expect(await blobsOf(dataDir, items)).to.deep.equal([true]);
    await resumes(env, dataDir, items);
  });

  it('resumes a retirement killed after ItemBytesRetired was appended and before the read models showed it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'retention-kill-'));
    dirs.push(dataDir);
    const env = {
      DATA_DIR: dataDir,
      WALLET_FILE: SERVICE_WALLET_FILE,
      GATEWAY_URL: arlocal.url,
      ...ARLOCAL_HEIGHT_SETTINGS,
      BUNDLE_MAX_WAIT_MS: '0',
      BUNDLER_INTERVAL_MS: '200',
      CONFIRMATIONS: '2',
      FREE_UPLOAD_LIMIT_BYTES: '1048576',
      RETAIN_INTERVAL_MS: '100',
      PROJECTION_WAIT_MS: '500',
      BLOB_SWEEP_GRACE_MS: '1000',
      BLOB_SWEEP_INTERVAL_MS: '200',
    };
    // split: the projector a process of its own, which the test holds (SIGSTOP) while retention runs
    const commands = await start({ ...env, ROLE: 'commands', RETAIN_PERMANENT_BYTES_MS: '-1' });
    const projector = await start({ ...env, ROLE: 'projector' });
    const bundler = await start({ ...env, ROLE: 'bundler' });
    const jwk = JSON.parse(await readFile(SERVICE_WALLET_FILE, 'utf8')) as { n: string };
    await arlocal.mint(createHash('sha256').update(Buffer.from(jwk.n, 'base64url')).digest('base64url'), '100000000000000000');
    const item = await signedItem(signers.arweave(), 'retired while the read models stood still');
    expect((await fetch(`${commands.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    const due = () => {
      const db = new Database(join(dataDir, 'read.db'), { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM documents WHERE collection = ? AND id = ?').pluck().get(collectionOf(retentionDueProjection), item.id) === 1;
      } finally {
        db.close();
      }
    };
    await eventually(
      async () => {
        await arlocal.mine(1);
        return due();
      },
      Boolean,
      'the item due for retention in the read models',
      120_000,
    );
    projector.process.kill('SIGSTOP');
    await commands.stop();
    const retiring = await start({ ...env, ROLE: 'commands', RETAIN_PERMANENT_BYTES_MS: '0' });
    await eventually(
      () => retirementsOf(dataDir, [item]),
      (n) => n[0] === 1,
      'ItemBytesRetired appended',
    );
    await retiring.kill();
    expect(due(), 'the read models do not show the retirement').to.equal(true);
    expect(await blobsOf(dataDir, [item])).to.deep.equal([true]);
    projector.process.kill('SIGCONT');
    await projector.stop();
    await bundler.stop();
    await resumes({ ...env, RETAIN_PERMANENT_BYTES_MS: '0' }, dataDir, [item]);
  });

  it('resumes a pass over several items killed in its middle, retiring each of them exactly once', async () => {
    const { env, dataDir, items } = await killedAtDeletion(5, 2);
    // the first two retired and deleted, the third recorded and not deleted, the last two untouched
    expect(await retirementsOf(dataDir, items)).to.deep.equal([1, 1, 1, 0, 0]);
    expect(await blobsOf(dataDir, items)).to.deep.equal([false, false, true, true, true]);
    await resumes(env, dataDir, items);
  });
});
