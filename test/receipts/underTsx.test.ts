import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { verifyReceipt } from '../../src/receipts/verifyReceipt.js';
import { loadTestJwk } from '../fixtures/testWallet.js';

const tsxCli = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));
const script = fileURLToPath(new URL('../fixtures/signOneReceipt.ts', import.meta.url));

describe('receipt signer under tsx', () => {
  it('signs from its worker threads when the program runs as `tsx file.ts`, from any working directory', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [tsxCli, script], { cwd: tmpdir() });
    const signed = JSON.parse(stdout) as { id: string; deadlineHeight: number; timestamp: number; signature: string };

    expect({ ...signed, signature: undefined }).to.deep.equal({
      id: 'signed-under-tsx',
      deadlineHeight: 1200,
      timestamp: 1700000000000,
      signature: undefined,
    });
    expect(await verifyReceipt({ ...signed, version: '0.2.0', public: loadTestJwk().n })).to.equal(true);
  });
});
