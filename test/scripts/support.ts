import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { AccountRepository } from '../../src/app/accounts.js';
import { balanceBody, type BalanceBody } from '../../src/http/balanceBody.js';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs an operator CLI as `npm run` does (tsx), in another process, with only the given configuration:
 * the developer's own environment (an ADMIN_TOKEN, a DATA_DIR) must not leak in.
 */
export function runCli(script: 'credit' | 'approve', args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', `scripts/${script}.ts`, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The account as its stream says, read from the SQLite file the CLI wrote. */
export async function storedBalance(dataDir: string, address: string): Promise<BalanceBody> {
  const eventStore = openSqliteEventStore({ path: join(dataDir, 'events.db') });
  try {
    return balanceBody(address, await new AccountRepository(eventStore).read(address));
  } finally {
    await eventStore.close();
  }
}
