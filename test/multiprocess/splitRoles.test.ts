import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { startServiceProcess, type ServiceProcess } from '../../scripts/lib/serviceProcess.js';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from '../support/arlocal.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, postChunk } from '../support/multipart.js';
import { storedBlob } from '../support/storedBlob.js';

let diagnostics = () => '';

/** the pid of the process holding a lease (instance ids start with the pid) */
function leaseHolder(dataDir: string, name: string): number {
  const db = new Database(join(dataDir, 'read.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT holder FROM leases WHERE name = ?').get(name) as { holder: string };
    return Number(row.holder.split('-')[0]);
  } finally {
    db.close();
  }
}

/** Polls `read` until `done` holds (the roles talk only through the shared stores). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, tries = 200): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < tries; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}${diagnostics()}`);
}

/**
 * The split deployment on one machine with the embedded stores: two command processes, one query
 * process, two projectors and two bundlers (one active each, by lease) share a data directory.
 * Uploads go to both command processes, the chunks of one multi-part upload too; the active projector
 * and bundler are killed halfway; everything ends permanent, read through the query process.
 */
describe('split roles in separate processes on the embedded stores', function () {
  this.timeout(180_000);
  let dataDir: string;
  let arlocal: Arlocal;
  const processes: ServiceProcess[] = [];

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'split-'));
    arlocal = await startArlocal();
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop().catch(() => {})));
    await arlocal?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('takes uploads spread over two command processes to FINALIZED, read from the query process', async () => {
    const env = (role: string) => ({
      ROLE: role,
      DATA_DIR: dataDir,
      WALLET_FILE: SERVICE_WALLET_FILE,
      GATEWAY_URL: arlocal.url,
      ...ARLOCAL_HEIGHT_SETTINGS,
      BUNDLE_MAX_WAIT_MS: '0',
      BUNDLER_INTERVAL_MS: '200',
      CONFIRMATIONS: '3',
      RECEIPT_SIGNER_WORKERS: '1',
    });
    const roles = ['commands', 'commands', 'queries', 'projector', 'projector', 'bundler', 'bundler'];
    const started = await Promise.all(roles.map((role) => startServiceProcess(env(role))));
    processes.push(...started);
    diagnostics = () => '\n' + started.map((p, i) => `process ${i}: ${p.stderr()}`).join('\n');
    const [commandsA, commandsB, queries] = started as [ServiceProcess, ServiceProcess, ServiceProcess];
    await arlocal.mint((await (await fetch(`${queries.url}/info`)).json()).addresses.arweave, '100000000000000000');

    const singles = await Promise.all(Array.from({ length: 6 }, (_, i) => signedItem(i % 2 ? signers.ethereum() : signers.arweave(), `item ${i}`)));
    const answers = await Promise.all(
      singles.map((item, i) => fetch(`${(i % 2 ? commandsA : commandsB).url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })),
    );
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);

    // one multi-part upload, its chunks over both command processes, finalized on one of them
    const big = await itemOfSize(signers.ethereum(), 40_000);
    const raw = big.getRaw();
    const uploadId = await createUpload(commandsA.url);
    for (let offset = 0, i = 0; offset < raw.length; offset += 10_000, i++) {
      const res = await postChunk((i % 2 ? commandsA : commandsB).url, uploadId, offset, raw.subarray(offset, offset + 10_000));
      expect(res.status, `chunk ${offset}`).to.equal(200);
    }
    const finalize = await fetch(`${commandsB.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
    expect(finalize.status).to.equal(200);

    const items = [...singles, big];
    const statusOf = async (id: string) => (await fetch(`${queries.url}/tx/${id}/status`)).json().catch(() => ({}));
    for (const item of items)
      await eventually(
        () => statusOf(item.id),
        (s) => s.info === 'pending' && !!s.bundleId,
        `status of ${item.id}`,
      );

    // the active projector and the active bundler die: the waiting ones take over their leases
    for (const lease of ['projector', 'bundler']) {
      const holder = leaseHolder(dataDir, lease);
      const active = started.find((p) => p.process.pid === holder)!;
      expect(roles[started.indexOf(active)]).to.equal(lease);
      await active.kill();
    }
    // blocks keep coming while the waiting bundler takes over: a bundle it posts after some block is
    // still mined (one block every fifth poll, well inside the 50 blocks after which a bundle is dropped)
    let polls = 0;
    const minedStatusOf = async (id: string) => {
      if (polls++ % 5 === 0) await arlocal.mine(1);
      return statusOf(id);
    };
    for (const item of items) {
      const status = await eventually(
        () => minedStatusOf(item.id),
        (s) => s.status === 'FINALIZED',
        `status of ${item.id}`,
        600,
      );
      expect(status.info).to.equal('permanent');
      const stored = await storedBlob(dataDir, `items/${item.id}`);
      expect(Buffer.compare(stored!, item.getRaw()), item.id).to.equal(0);
    }
    expect((await (await fetch(`${queries.url}/chunks/arweave/${uploadId}/status`)).json()).status).to.equal('FINALIZED');
    // the query process serves no commands, the command processes no queries
    expect((await fetch(`${queries.url}/tx`, { method: 'POST', body: asBody(singles[0]!.getRaw()) })).status).to.equal(404);
    expect((await fetch(`${commandsA.url}/tx/${big.id}/status`)).status).to.equal(404);
  });
});
