import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { runScript, type CliResult } from '../support/runScript.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ID = '[A-Za-z0-9_-]{43}';

/** What the demo printed about where it ran: its temp directory and its two children's URLs. */
function whereItRan(stdout: string) {
  return {
    dir: /^Temp directory \(removed at the end\): (\S+)$/m.exec(stdout)?.[1],
    arlocal: /^ {2}arlocal is listening on (\S+)$/m.exec(stdout)?.[1],
    service: /^ {2}the service is listening on (\S+)$/m.exec(stdout)?.[1],
  };
}

/** true when nothing answers there any more (the process is gone, its port closed) */
const gone = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(5000) }).then(
    () => false,
    () => true,
  );

async function expectNothingLeft(run: CliResult) {
  const where = whereItRan(run.stdout);
  expect(where.dir, run.stdout).to.be.a('string');
  expect(existsSync(where.dir!), `${where.dir} still exists`).to.equal(false);
  for (const url of [where.arlocal, where.service]) {
    if (url !== undefined) expect(await gone(url), `${url} still answers`).to.equal(true);
  }
}

/** The demo as a child process, interrupted with `signal` once its output contains `after`. */
function runInterrupted(after: string, signal: NodeJS.Signals): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let sent = false;
  child.stdout.on('data', (d) => {
    stdout += d;
    if (!sent && stdout.includes(after)) {
      sent = true;
      child.kill(signal);
    }
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run demo', function () {
  this.timeout(150_000);

  it('uploads with turbo-sdk (one request and multi-part) and arbundles, follows every item to FINALIZED, exits 0 and leaves nothing behind', async () => {
    const run = await runScript('demo', [], {});
    const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, context).to.equal(0);

    const ids = [...run.stdout.matchAll(new RegExp(`^ {3}accepted: item (${ID})$`, 'gm'))].map((m) => m[1]!);
    expect(ids, context).to.have.length(4);
    for (const id of ids) {
      const bundleId = new RegExp(`^ {2}${id}: .* -> FINALIZED \\(permanent, bundle (${ID})\\)$`, 'm').exec(run.stdout)?.[1];
      expect(bundleId, `${id} reaches FINALIZED\n${context}`).to.be.a('string');
      // where it is in that bundle, read back from arlocal
      expect(run.stdout, context).to.match(
        new RegExp(`^ {2}${id}: bundle ${bundleId}, bytes \\d+ to \\d+\\n.*\\n {4}read back from arlocal at that offset: the same item`, 'm'),
      );
    }
    expect(run.stdout.match(/receipt signature verified with arweave-js/g), context).to.have.length(4);

    const summary = run.stdout
      .slice(run.stdout.indexOf('\nSummary:\n') + 1)
      .split('\n')
      .slice(0, 6);
    expect(summary).to.deep.equal([
      'Summary:',
      `  FINALIZED  ${ids[0]}  turbo-sdk, one request`,
      `  FINALIZED  ${ids[1]}  turbo-sdk, multi-part`,
      `  FINALIZED  ${ids[2]}  arbundles (ethereum), POST /tx`,
      `  FINALIZED  ${ids[3]}  arbundles (solana), POST /tx`,
      'All 4 items are FINALIZED.',
    ]);
    expect(run.stderr).to.equal('');
    await expectNothingLeft(run);
  });

  it('on Ctrl-C (SIGINT) stops the service and arlocal, removes its directory and exits 130', async () => {
    const run = await runInterrupted('the service is listening on', 'SIGINT');
    expect(run.code, `${run.stdout}\n${run.stderr}`).to.equal(130);
    expect(run.stderr).to.match(/^Interrupted \(SIGINT\) while .+\.$/m);
    expect(run.stdout).to.match(/^Cleaning up: stopping the service and arlocal, removing \S+$/m);
    await expectNothingLeft(run);
  });

  it('exits 1 with a message naming the step when it is not done within --timeout, and cleans up', async () => {
    const run = await runScript('demo', ['--timeout', '1'], {});
    expect(run.code, `${run.stdout}\n${run.stderr}`).to.equal(1);
    expect(run.stderr.split('\n')[0]).to.equal('Demo failed: not done within 1 s (while starting arlocal and the service).');
    expect(run.stdout).to.match(/^Cleaning up: stopping the service and arlocal, removing \S+$/m);
    await expectNothingLeft(run);
  });
});
