import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { readManifest } from '../../scripts/lib/backup/manifest.js';
import { takeBackup, type BackupStep } from '../../scripts/lib/backup/takeBackup.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { runScript } from '../support/runScript.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { canMountTmpfs, mountTmpfs, tmpfsNotRunMessage } from '../support/tmpfs.js';
import { SERVICE_WALLET_FILE, startTestService, testServiceConfig, type TestService } from '../support/testService.js';
import { eventually } from '../support/eventually.js';

interface Receipted {
  id: string;
  payload: Buffer;
}

/** One signed item over HTTP (64 bytes of payload, or `size`); its id and payload once the service answered 200 with a receipt. */
async function upload(url: string, size = 64): Promise<Receipted> {
  const item = await signedItem(signers.arweave(), randomBytes(size));
  const res = await fetch(`${url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
  const receipt = (await res.json()) as { id?: string };
  expect({ status: res.status, id: receipt.id }).to.deep.equal({ status: 200, id: item.id });
  return { id: item.id, payload: item.rawData };
}

/** Uploads, two at a time, until stopped: every receipt in the order it arrived. */
function loadLoop(url: string) {
  const receipted: Receipted[] = [];
  let stopping = false;
  // every fifth one larger than a small-blob row (65,536 bytes): a file of its own, hard-linked by the backup
  const worker = async () => {
    while (!stopping) receipted.push(await upload(url, receipted.length % 5 === 4 ? 70_000 : 64));
  };
  const workers = [worker(), worker()];
  return {
    receipted,
    async stop() {
      stopping = true;
      await Promise.all(workers);
    },
  };
}

/** The item ids the SQLite event store of `dataDir` accepted at a position after `after`. */
async function acceptedAfter(dataDir: string, after: bigint): Promise<string[]> {
  const store = openSqliteEventStore({ path: join(dataDir, 'events.db') });
  try {
    const ids = [];
    for await (const e of store.readAll({ after })) if (e.type === 'DataItemAccepted') ids.push((e.data as { id: string }).id);
    return ids.sort();
  } finally {
    await store.close();
  }
}

/** What a service answers for an item: its status code and, when 200, its payload bytes. */
async function readBack(url: string, id: string): Promise<{ status: number; payload?: Buffer }> {
  const status = await fetch(`${url}/tx/${id}/status`);
  await status.arrayBuffer();
  if (status.status !== 200) return { status: status.status };
  const data = await fetch(`${url}/${id}`);
  return { status: data.status, payload: Buffer.from(await data.arrayBuffer()) };
}

/** every item answers 200 with its exact payload; the ids of those that do not */
async function notReadBack(url: string, items: readonly Receipted[]): Promise<string[]> {
  const wrong = [];
  for (const item of items) {
    const got = await readBack(url, item.id);
    if (got.status !== 200 || !got.payload?.equals(item.payload)) wrong.push(`${item.id}: ${got.status}, ${got.payload?.length ?? 0} bytes`);
  }
  return wrong;
}

describe('npm run backup and npm run restore (embedded profile)', function () {
  this.timeout(300_000);
  const cleanup: string[] = [];
  let service: TestService;
  let restored: RunningService | undefined;
  const temp = async (name: string) => {
    const dir = await mkdtemp(join(tmpdir(), `${name}-`));
    cleanup.push(dir);
    return dir;
  };
  /** a service on `dataDir`, signing with the wallet the restore put there */
  const startOn = async (dataDir: string) => {
    const config = testServiceConfig(dataDir, service.gatewayUrl, { WALLET_FILE: join(dataDir, 'wallet.json') });
    restored = await startService(config, createLogger(config.logLevel));
    return restored;
  };

  beforeEach(async () => {
    service = await startTestService();
  });
  afterEach(async () => {
    await restored?.stop();
    restored = undefined;
    await service?.close();
    await Promise.all(cleanup.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('backs up while uploads run; the restore serves every item receipted before it, audits clean, and the compare lists exactly the later ones', async () => {
    const backupDir = join(await temp('backup'), 'b');
    const restoredDir = join(await temp('restored'), 'data');
    const load = loadLoop(service.url);
    await eventually(
      () => load.receipted.length,
      (n) => n >= 20,
      '20 uploads receipted before the backup',
    );
    const beforeBackup = load.receipted.slice();
    const backup = await runScript('backup', [backupDir], { DATA_DIR: service.dataDir, WALLET_FILE: SERVICE_WALLET_FILE });
    const receiptedDuringBackup = load.receipted.length - beforeBackup.length;
    // a few more, so some are surely after the backup's point in time
    await eventually(
      () => load.receipted.length,
      (n) => n >= beforeBackup.length + receiptedDuringBackup + 10,
      '10 uploads after the backup',
    );
    await load.stop();
    expect({ code: backup.code, stderr: backup.stderr }).to.deep.equal({ code: 0, stderr: '' });
    const manifest = await readManifest(backupDir);
    expect((await stat(join(backupDir, 'wallet.json'))).mode & 0o777).to.equal(0o600);
    expect((await stat(backupDir)).mode & 0o777).to.equal(0o700);
    const itemFiles = manifest.files.filter((f) => f.path.startsWith('items/') || f.path.startsWith('blobs/items/'));
    expect(itemFiles.length, 'item blobs in files of their own').to.be.at.least(4);
    expect(manifest.files.filter((f) => /-(wal|shm)$/.test(f.path))).to.deep.equal([]);
    // the backup is on the data directory's filesystem: item files are hard links, not copies
    expect(Number(/blob files: (\d+) hard-linked, (\d+) copied/.exec(backup.stdout)?.[1])).to.equal(itemFiles.length);

    const restore = await runScript('restore', [backupDir], { DATA_DIR: restoredDir });
    expect({ code: restore.code, stderr: restore.stderr }).to.deep.equal({ code: 0, stderr: '' });
    expect(await readFile(join(restoredDir, 'wallet.json'), 'utf8')).to.equal(await readFile(SERVICE_WALLET_FILE, 'utf8'));
    expect((await stat(join(restoredDir, 'wallet.json'))).mode & 0o777).to.equal(0o600);

    const again = await startOn(restoredDir);
    await eventually(
      () => notReadBack(again.url, beforeBackup),
      (wrong) => wrong.length === 0,
      'items receipted before the backup read back',
    );
    const info = async (url: string) => ((await (await fetch(`${url}/info`)).json()) as { addresses: unknown }).addresses;
    expect(await info(again.url)).to.deep.equal(await info(service.url));

    const env = { DATA_DIR: restoredDir, WALLET_FILE: join(restoredDir, 'wallet.json') };
    const audit = await runScript('audit', [], env);
    expect({ code: audit.code, stderr: audit.stderr }, audit.stdout).to.deep.equal({ code: 0, stderr: '' });

    const later = await acceptedAfter(service.dataDir, BigInt(manifest.eventStoreHead));
    const compare = await runScript('audit', ['--compare-with', service.dataDir], env);
    const listed = [...compare.stdout.matchAll(/^receipted after the backup (\S+) /gm)].map((m) => m[1]).sort();
    expect(later.length, 'items receipted after the backup').to.be.at.least(10);
    expect({ code: compare.code, listed }).to.deep.equal({ code: 1, listed: later });
    // every receipt of the loop is either served by the restored service or listed
    const restoredIds = load.receipted.filter((r) => !later.includes(r.id));
    expect(restoredIds.length + later.length).to.equal(load.receipted.length);
    expect(await notReadBack(again.url, restoredIds)).to.deep.equal([]);
    console.log(
      `        ${beforeBackup.length} receipted before the backup, ${receiptedDuringBackup} during it, ${later.length} after its event store (position ${manifest.eventStoreHead}); ${manifest.files.length} files`,
    );
  });

  it('holds every item receipted before the event store is copied, and read models never ahead of it (uploads between the steps)', async () => {
    const backupDir = join(await temp('backup'), 'b');
    const restoredDir = join(await temp('restored'), 'data');
    const during: Partial<Record<BackupStep, Receipted[]>> = {};
    const afterStep = async (step: BackupStep) => {
      const items = [];
      for (let i = 0; i < 5; i++) items.push(await upload(service.url));
      // projected: the read store has them (a read store copied from now on would be ahead of the events copied before)
      for (const item of items)
        await eventually(
          () => readBack(service.url, item.id),
          (r) => r.status === 200,
          `${item.id} projected`,
        );
      during[step] = items;
    };
    await takeBackup({ dataDir: service.dataDir, dest: backupDir, walletFile: SERVICE_WALLET_FILE, afterStep });
    const restore = await runScript('restore', [backupDir], { DATA_DIR: restoredDir });
    expect({ code: restore.code, stderr: restore.stderr }).to.deep.equal({ code: 0, stderr: '' });

    const again = await startOn(restoredDir);
    // read store and blobs were copied before the event store: what was receipted meanwhile is in the backup
    const before = [...during['read store']!, ...during.blobs!];
    await eventually(
      () => notReadBack(again.url, before),
      (wrong) => wrong.length === 0,
      'items receipted before the event store copy read back',
    );
    const afterEvents = [...during['event store']!, ...during['blobs again']!];
    const answers = await Promise.all(afterEvents.map(async (item) => (await readBack(again.url, item.id)).status));
    expect(answers).to.deep.equal(afterEvents.map(() => 404));
    const audit = await runScript('audit', [], { DATA_DIR: restoredDir, WALLET_FILE: join(restoredDir, 'wallet.json') });
    expect({ code: audit.code, stderr: audit.stderr }, audit.stdout).to.deep.equal({ code: 0, stderr: '' });
  });

  it('keeps multi-part uploads: one finalized before the backup reads back, one open at it finalizes on the restored service', async () => {
    const finalized = await signedItem(signers.arweave(), randomBytes(300_000));
    const finalizedUpload = await createUpload(service.url);
    // chunks of 100,000 bytes are files, composed (hard links) into the item's blob at the finalize
    await postChunks(service.url, finalizedUpload, finalized.getRaw(), 100_000);
    expect((await fetch(`${service.url}/chunks/arweave/${finalizedUpload}/-1`, { method: 'POST' })).status).to.equal(200);
    // open at the backup: two chunks of 100,000 bytes (files, copied) and the last of 50,000 (a row)
    const open = await signedItem(signers.arweave(), randomBytes(250_000));
    const openUpload = await createUpload(service.url);
    await postChunks(service.url, openUpload, open.getRaw(), 100_000);

    const backupDir = join(await temp('backup'), 'b');
    await takeBackup({ dataDir: service.dataDir, dest: backupDir, walletFile: SERVICE_WALLET_FILE });
    const restoredDir = join(await temp('restored'), 'data');
    const restore = await runScript('restore', [backupDir], { DATA_DIR: restoredDir });
    expect({ code: restore.code, stderr: restore.stderr }).to.deep.equal({ code: 0, stderr: '' });

    const again = await startOn(restoredDir);
    const items = [
      { id: finalized.id, payload: finalized.rawData },
      { id: open.id, payload: open.rawData },
    ];
    await eventually(
      () => notReadBack(again.url, items.slice(0, 1)),
      (wrong) => wrong.length === 0,
      'the finalized upload read back',
    );
    const fin = await fetch(`${again.url}/chunks/arweave/${openUpload}/-1`, { method: 'POST' });
    expect(fin.status, await fin.text()).to.equal(200);
    expect(await notReadBack(again.url, items)).to.deep.equal([]);
    const audit = await runScript('audit', [], { DATA_DIR: restoredDir, WALLET_FILE: join(restoredDir, 'wallet.json') });
    expect({ code: audit.code, stderr: audit.stderr }, audit.stdout).to.deep.equal({ code: 0, stderr: '' });
  });

  it('restores into an empty DATA_DIR only, and refuses a file that does not match its manifest, writing nothing', async () => {
    await upload(service.url);
    const backupDir = join(await temp('backup'), 'b');
    await takeBackup({ dataDir: service.dataDir, dest: backupDir, walletFile: SERVICE_WALLET_FILE });

    const full = await temp('full');
    await writeFile(join(full, 'events.db'), 'older data');
    const refused = await runScript('restore', [backupDir], { DATA_DIR: full });
    expect({ code: refused.code, stderr: refused.stderr }).to.deep.equal({
      code: 1,
      stderr: `error: DATA_DIR ${full} is not empty (events.db): a restore goes into an empty or new directory only, never over stores already there\n`,
    });
    expect(await readFile(join(full, 'events.db'), 'utf8')).to.equal('older data');

    const manifest = await readManifest(backupDir);
    const blob = manifest.files.find((f) => f.path.startsWith('blobs/.small-blobs.db'))!;
    const bytes = await readFile(join(backupDir, blob.path));
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    await rm(join(backupDir, blob.path));
    await writeFile(join(backupDir, blob.path), bytes);
    const empty = join(await temp('tampered'), 'data');
    const tampered = await runScript('restore', [backupDir], { DATA_DIR: empty });
    expect(tampered.code).to.equal(1);
    expect(tampered.stderr).to.match(
      new RegExp(
        `^error: ${blob.path.replace(/\./g, '\\.')} does not match the manifest \\(${blob.size} bytes, sha256 [0-9a-f]{64}; the manifest says ${blob.size} bytes, sha256 ${blob.sha256}\\): nothing restored\n$`,
      ),
    );
    expect(existsSync(empty), 'DATA_DIR made').to.equal(false);
  });

  const onAnotherFilesystem = 'copies, not links, item files onto another filesystem (a tmpfs), and the restore from there is whole';
  if (!canMountTmpfs) it(`${onAnotherFilesystem}: ${tmpfsNotRunMessage}`);
  else
    it(onAnotherFilesystem, async () => {
      const disk = mountTmpfs(64 * 1024 * 1024);
      try {
        const items = [await upload(service.url, 70_000), await upload(service.url, 70_000), await upload(service.url)];
        const backupDir = disk.dir;
        const { blobs, manifest } = await takeBackup({ dataDir: service.dataDir, dest: join(backupDir, 'b'), walletFile: SERVICE_WALLET_FILE });
        expect(blobs).to.deep.equal({ linked: 0, copied: 2, kept: 2 });
        expect(manifest.files.filter((f) => f.path.startsWith('blobs/items/')).map((f) => f.size)).to.have.length(2);
        const restoredDir = join(await temp('restored'), 'data');
        const restore = await runScript('restore', [join(backupDir, 'b')], { DATA_DIR: restoredDir });
        expect({ code: restore.code, stderr: restore.stderr }).to.deep.equal({ code: 0, stderr: '' });
        const again = await startOn(restoredDir);
        await eventually(
          () => notReadBack(again.url, items),
          (wrong) => wrong.length === 0,
          'items read back',
        );
      } finally {
        disk.remove();
      }
    });

  it('refuses a manifest that names a file outside the backup, writing nothing', async () => {
    const backupDir = join(await temp('backup'), 'b');
    await takeBackup({ dataDir: service.dataDir, dest: backupDir, walletFile: SERVICE_WALLET_FILE });
    const manifest = await readManifest(backupDir);
    manifest.files.push({ path: '../outside', size: 0, sha256: '0'.repeat(64) });
    await writeFile(join(backupDir, 'manifest.json'), JSON.stringify(manifest));
    const empty = join(await temp('restored'), 'data');
    const refused = await runScript('restore', [backupDir], { DATA_DIR: empty });
    expect({ code: refused.code, stderr: refused.stderr }).to.deep.equal({
      code: 1,
      stderr: `error: ${join(backupDir, 'manifest.json')} names a file outside the backup: ../outside\n`,
    });
    expect(existsSync(empty), 'DATA_DIR made').to.equal(false);
  });

  it('refuses a directory that is not empty as a backup destination', async () => {
    const dest = await temp('backup');
    await writeFile(join(dest, 'x'), 'x');
    const refused = await runScript('backup', [dest], { DATA_DIR: service.dataDir, WALLET_FILE: SERVICE_WALLET_FILE });
    expect({ code: refused.code, stderr: refused.stderr }).to.deep.equal({
      code: 1,
      stderr: `error: ${dest} is not empty (1 entries): a backup goes into a new or empty directory\n`,
    });
  });
});
