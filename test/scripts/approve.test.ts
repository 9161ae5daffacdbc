import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore, runCli, storedBalance } from './support.js';

const payer = 'payer'.padEnd(43, 'P');
const owner = 'owner'.padEnd(43, 'O');

describe('npm run approve', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'approve-cli-'));
    await createEventStore(dataDir);
    await runCli('credit', [payer, '1000', '--id', 'seed'], { DATA_DIR: dataDir });
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('approves an owner until an expiry and prints a one-line summary', async () => {
    const result = await runCli('approve', [payer, owner, '300', '--expires', '2099-01-01T00:00:00+02:00'], { DATA_DIR: dataDir });
    expect(result).to.deep.equal({
      code: 0,
      stdout: `${payer} pays up to 300 winc for ${owner} until 2098-12-31T22:00:00.000Z; payer available: 1000 winc\n`,
      stderr: '',
    });
    expect((await storedBalance(dataDir, payer)).givenApprovals).to.deep.equal([
      { approvedAddress: owner, remainingWinc: '300', expiresAt: '2098-12-31T22:00:00.000Z' },
    ]);
  });

  it('revokes with --revoke, printing the payer balance body with --json, and says when there was nothing to revoke', async () => {
    await runCli('approve', [payer, owner, '300'], { DATA_DIR: dataDir });
    const revoked = await runCli('approve', ['--revoke', payer, owner, '--json'], { DATA_DIR: dataDir });
    expect(revoked.code).to.equal(0);
    expect(JSON.parse(revoked.stdout)).to.deep.equal({
      address: payer,
      winc: '1000',
      creditedWinc: '1000',
      spentWinc: '0',
      reservedWinc: '0',
      givenApprovals: [],
    });
    const again = await runCli('approve', ['--revoke', payer, owner], { DATA_DIR: dataDir });
    expect(again).to.deep.equal({ code: 0, stdout: `${payer} had no approval for ${owner}; nothing changed\n`, stderr: '' });
  });

  it('exits 1 with the message when the account refuses the command', async () => {
    const self = await runCli('approve', [payer, payer, '5'], { DATA_DIR: dataDir });
    expect(self).to.deep.equal({ code: 1, stdout: '', stderr: 'error: Invalid request: an account cannot approve itself\n' });
    const past = await runCli('approve', [payer, owner, '5', '--expires', '2001-01-01T00:00:00Z'], { DATA_DIR: dataDir });
    expect(past).to.deep.equal({ code: 1, stdout: '', stderr: 'error: Invalid request: the approval would expire before it is granted\n' });
    expect((await storedBalance(dataDir, payer)).givenApprovals).to.deep.equal([]);
  });

  it('exits 2 with the usage on stderr for a bad command line', async () => {
    const cases: [string[], string][] = [
      [[payer, owner], 'expected 3 arguments, got 2'],
      [['--revoke', payer, owner, '5'], 'expected 2 arguments, got 3'],
      [['--revoke', payer, owner, '--expires', '2099-01-01T00:00:00Z'], '--expires does not go with --revoke'],
      [[payer, owner, '-5'], "Unknown option '-5'"],
      [[payer, 'nope', '5'], 'invalid owner: "nope"'],
      [[payer, owner, '5', '--expires', 'tomorrow'], 'invalid --expires'],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli('approve', args, { DATA_DIR: dataDir })));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      expect(result.code, args.join(' ')).to.equal(2);
      expect(result.stdout).to.equal('');
      expect(result.stderr.split('\n')[0], args.join(' ')).to.contain(message);
      expect(result.stderr).to.contain('usage: npm run approve -- <payer> <owner> <winc>');
    });
  });
});
