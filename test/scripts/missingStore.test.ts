import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScript } from '../support/runScript.js';
import { createEventStore, storedBalance } from './support.js';

const alice = 'alice'.padEnd(43, 'A');
const owner = 'owner'.padEnd(43, 'O');

/** every tool that writes: the account commands, the requeue of failed items, and the rebuild of the read models */
const writingTools: [string, string[]][] = [
  ['credit', [alice, '1500', '--id', 'invoice-9']],
  ['approve', [alice, owner, '300']],
  ['approve', ['--revoke', alice, owner]],
  ['requeue', ['A'.repeat(43), '--reason', 'gateway healed']],
  ['requeue', ['--all-failed', '--reason', 'gateway healed']],
  ['block', [alice, '--by', 'ops', '--reason', 'abuse']],
  ['unblock', [alice, '--by', 'ops', '--reason', 'appeal']],
  ['rebuild', []],
];
/** the auditors' tools, and the operator's listing, which only read, refuse the same way */
const readingTools: [string, string[]][] = [
  ['history', [alice]],
  ['audit', []],
  ['blocklist', []],
  // reads the stores, writes only its own directory (never made when refused)
  ['backup', [join(tmpdir(), 'missing-store-backup-never-made')]],
];

const refusal = (dataDir: string) => ({
  code: 2,
  stdout: '',
  stderr: `no event store at ${join(dataDir, 'events.db')} (is DATA_DIR right? the service creates it at its first start)\n`,
});

describe('operator tools on a DATA_DIR with no store', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'missing-store-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('every tool that writes refuses a mistyped DATA_DIR with exit 2, names where it looked, and creates nothing', async () => {
    const mistyped = join(root, 'dta');
    for (const [tool, args] of writingTools) {
      const result = await runScript(tool, args, { DATA_DIR: mistyped });
      expect(result, `${tool} ${args.join(' ')}`).to.deep.equal(refusal(mistyped));
      expect(existsSync(mistyped), `${tool} created the directory`).to.equal(false);
    }
  });

  it('every tool that writes refuses a directory without an event store, and leaves it empty', async () => {
    const empty = join(root, 'data');
    await mkdir(empty);
    for (const [tool, args] of writingTools) {
      const result = await runScript(tool, args, { DATA_DIR: empty });
      expect(result, `${tool} ${args.join(' ')}`).to.deep.equal(refusal(empty));
      expect(await readdir(empty), `${tool} wrote into the directory`).to.deep.equal([]);
    }
  });

  it('the tools of the auditors, which only read, refuse it the same way (a configuration error, not a finding)', async () => {
    const mistyped = join(root, 'dta');
    for (const [tool, args] of readingTools) {
      const result = await runScript(tool, args, { DATA_DIR: mistyped });
      expect(result, `${tool} ${args.join(' ')}`).to.deep.equal(refusal(mistyped));
    }
    expect(existsSync(mistyped)).to.equal(false);
  });

  it('the right DATA_DIR, with the store the service created, takes the credit', async () => {
    const dataDir = join(root, 'data');
    await createEventStore(dataDir);
    const result = await runScript('credit', [alice, '1500', '--id', 'invoice-9'], { DATA_DIR: dataDir });
    expect(result.code, result.stderr).to.equal(0);
    expect((await storedBalance(dataDir, alice)).winc).to.equal('1500');
  });

  it('no tool opens an event store but through the helpers that refuse a missing one', async () => {
    // writers: withExistingEventStore (scripts/lib/operatorStore.ts); readers: withAuditorStores.
    // The benches make their own stores in temporary directories. The audit's --compare-with opens the
    // old DATA_DIR's event store only once it found its events.db (scripts/lib/backup/listReceiptsMissing.ts).
    const scripts = fileURLToPath(new URL('../../scripts/', import.meta.url));
    const files = (await readdir(scripts, { recursive: true })).filter((f) => f.endsWith('.ts') && !f.startsWith('bench'));
    const opening: string[] = [];
    for (const file of files) {
      const text = await readFile(join(scripts, file), 'utf8');
      if (/\b(openEventStoreFromConfig|openSqliteEventStore|createEsdbEventStore)\(/.test(text)) opening.push(file);
    }
    expect(opening.sort()).to.deep.equal(['lib/auditorStores.ts', 'lib/backup/listReceiptsMissing.ts', 'lib/operatorStore.ts']);
  });
});
