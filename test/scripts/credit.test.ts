import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { creditedOnly } from '../support/balances.js';
import { createEventStore, runCli, storedBalance } from './support.js';

const alice = 'alice'.padEnd(43, 'A');
const eth = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('npm run credit', () => {
  let root: string;
  /** the service's data directory, with its (empty) event store */
  let dataDir: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'credit-cli-'));
    dataDir = join(root, 'data');
    await createEventStore(dataDir);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('credits the account in the configured store and prints a one-line summary', async () => {
    const result = await runCli('credit', [alice, '1500', '--id', 'invoice-9', '--reason', 'prepaid plan'], { DATA_DIR: dataDir });
    expect(result).to.deep.equal({
      code: 0,
      stdout: `credited 1500 winc to ${alice} (credit invoice-9); available: 1500 winc\n`,
      stderr: '',
    });
    expect(await storedBalance(dataDir, alice)).to.deep.equal(creditedOnly(alice, '1500'));
  });

  it('prints the balance body with --json and keys ethereum accounts by their EIP-55 address', async () => {
    const result = await runCli('credit', [eth.toLowerCase(), '123456789012345678901234567890', '--id', 'c1', '--json'], { DATA_DIR: dataDir });
    expect(result.code).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal({ ...creditedOnly(eth, '123456789012345678901234567890'), creditId: 'c1' });
  });

  it('credits the same --id once and says so the second time', async () => {
    await runCli('credit', [alice, '700', '--id', 'payment-42'], { DATA_DIR: dataDir });
    const again = await runCli('credit', [alice, '700', '--id', 'payment-42'], { DATA_DIR: dataDir });
    expect(again).to.deep.equal({
      code: 0,
      stdout: `credit payment-42 was already applied to ${alice}; available: 700 winc\n`,
      stderr: '',
    });
    expect(await storedBalance(dataDir, alice)).to.deep.equal(creditedOnly(alice, '700'));
  });

  it('exits 2 with the usage on stderr for a bad command line, and opens no store', async () => {
    const elsewhere = join(root, 'elsewhere');
    const cases: [string[], string][] = [
      [[], 'expected 2 arguments, got 0'],
      [['not-an-address', '5'], 'invalid address: "not-an-address"'],
      [[alice, '0'], 'invalid winc (a positive integer): "0"'],
      [[alice, '1.5'], 'invalid winc (a positive integer): "1.5"'],
      [[alice, 'abc'], 'invalid winc (a positive integer): "abc"'],
      [[alice, '5', '--id', 'has space'], 'invalid --id: "has space"'],
      [[alice, '5', '--bogus'], "Unknown option '--bogus'"],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli('credit', args, { DATA_DIR: elsewhere })));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      expect(result.code, args.join(' ')).to.equal(2);
      expect(result.stdout).to.equal('');
      expect(result.stderr.split('\n')[0], args.join(' ')).to.contain(message);
      expect(result.stderr).to.contain('usage: npm run credit -- <address> <winc>');
    });
    expect(existsSync(elsewhere)).to.equal(false);
  });

  it('prints the usage on stdout and exits 0 with --help', async () => {
    const result = await runCli('credit', ['--help'], { DATA_DIR: dataDir });
    expect(result.code).to.equal(0);
    expect(result.stdout.split('\n')[0]).to.equal('usage: npm run credit -- <address> <winc> [--reason REASON] [--id CREDIT_ID] [--json]');
  });

  it('exits 2 naming the variable when the configuration is invalid', async () => {
    const result = await runCli('credit', [alice, '5'], { DATA_DIR: dataDir, EVENT_STORE: 'esdb' });
    expect(result).to.deep.equal({
      code: 2,
      stdout: '',
      stderr: 'invalid configuration:\n  EVENTSTORE_URL: required when EVENT_STORE=esdb\n',
    });
  });
});
