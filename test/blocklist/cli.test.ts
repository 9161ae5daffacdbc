import { expect } from 'chai';
import type { TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { runScript } from '../support/runScript.js';
import { eventually } from '../support/eventually.js';
import { admin, ownerOf, startBlocklistService, upload } from './support.js';

/** the status of a fresh free item of `signer` (ECDSA keys sign a new payload each time) */
const statusOfNewUpload = async (service: TestService, signer: ReturnType<typeof signers.ethereum>) =>
  (await upload(service, await itemOfSize(signer, 900))).status;

describe('block list: npm run block / unblock / blocklist beside a running service', function () {
  this.timeout(120_000);
  let service: TestService;
  before(async () => {
    service = await startBlocklistService();
  });
  after(() => service?.close());

  it('a block made by the CLI on the same data directory is seen by the running service without a restart, and so is the unblock', async () => {
    const signer = signers.ethereum();
    const owner = ownerOf(await itemOfSize(signer, 900));
    const env = { DATA_DIR: service.dataDir };
    expect(await statusOfNewUpload(service, signer)).to.equal(200);

    const blocked = await runScript('block', [owner.toLowerCase(), '--by', 'ops-carol', '--reason', 'phishing pages'], env);
    expect(blocked).to.deep.equal({ code: 0, stdout: `blocked ${owner}\n`, stderr: '' });
    await eventually(async () => (await statusOfNewUpload(service, signer)) === 403, Boolean, 'the service refuses the owner', 30_000);
    // the admin API reads the stream: it lists the CLI's block at once
    const listed = (await (await admin(service, 'GET', '/blocklist')).json()).blocked;
    expect(listed.map((b: { address: string; by: string; reason: string }) => [b.address, b.by, b.reason])).to.deep.equal([
      [owner, 'ops-carol', 'phishing pages'],
    ]);

    const again = await runScript('block', [owner, '--by', 'ops-dan', '--reason', 'again'], env);
    expect(again).to.deep.equal({ code: 0, stdout: `${owner} was already blocked (by ops-carol: phishing pages)\n`, stderr: '' });

    const list = await runScript('blocklist', [], env);
    expect(list.code).to.equal(0);
    expect(list.stdout).to.match(new RegExp(`^${owner}  since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  by ops-carol: phishing pages\\n$`));

    const unblocked = await runScript('unblock', [owner, '--by', 'ops-dan', '--reason', 'cleaned up', '--json'], env);
    expect(unblocked.code, unblocked.stderr).to.equal(0);
    expect(JSON.parse(unblocked.stdout)).to.deep.equal({ address: owner, blocked: false, changed: true });
    await eventually(async () => (await statusOfNewUpload(service, signer)) === 200, Boolean, 'the service takes the owner again', 30_000);

    // who, when and why, in the history of the block list
    const history = await runScript('history', ['blocklist'], env);
    expect(history.code, history.stderr).to.equal(0);
    const lines = history.stdout.trimEnd().split('\n');
    expect(lines[0]).to.equal('blocklist');
    expect(lines).to.have.length(3);
    expect(lines[1]).to.match(new RegExp(`AddressBlocked +${owner} blocked by ops-carol: phishing pages  \\[correlation [0-9a-f-]{36}, caused by cli\\]$`));
    expect(lines[2]).to.match(new RegExp(`AddressUnblocked +${owner} unblocked by ops-dan: cleaned up  \\[correlation [0-9a-f-]{36}, caused by cli\\]$`));

    // and in the address's own history (it has no account: its uploads were free)
    const own = await runScript('history', [owner.toLowerCase()], env);
    expect(own.code, own.stderr).to.equal(0);
    const ownLines = own.stdout.trimEnd().split('\n');
    expect(ownLines).to.have.length(3);
    expect(ownLines[0]).to.equal(`account-${owner}`);
    expect(ownLines[1]).to.match(new RegExp(`^blocklist#0  \\S+  AddressBlocked +${owner} blocked by ops-carol: phishing pages  `));
    expect(ownLines[2]).to.match(new RegExp(`^blocklist#1  \\S+  AddressUnblocked +${owner} unblocked by ops-dan: cleaned up  `));
  });

  it('refuses a command line without who or why, or with a bad address (exit 2), and changes nothing', async () => {
    const env = { DATA_DIR: service.dataDir };
    const alice = 'alice'.padEnd(43, 'A');
    for (const args of [[alice, '--reason', 'x'], [alice, '--by', 'ops'], ['nope', '--by', 'ops', '--reason', 'x'], []]) {
      const result = await runScript('block', args, env);
      expect(result.code, args.join(' ')).to.equal(2);
      expect(result.stderr).to.include('usage: npm run block -- <address> --by <who> --reason <why>');
    }
    expect(await runScript('blocklist', [], env)).to.deep.equal({ code: 0, stdout: 'no address is blocked\n', stderr: '' });
  });
});
