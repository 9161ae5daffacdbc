/**
 * `npm run credit -- <address> <winc> [--reason R] [--id CREDIT_ID] [--json]`: credits an account
 * in the configured event store (the same environment as the service; it may be running).
 * The same --id credits once, so a command repeated after a doubt is safe.
 */
import { randomUUID } from 'node:crypto';
import { CreditId, Reason } from '../src/contract/adminSchemas.js';
import { creditBody } from '../src/contract/balanceBody.js';
import { addressArg, argOf, parseCliArgs, UsageError, wincArg } from './lib/cliArgs.js';
import { cliMetadata, withOperatorStore } from './lib/operatorStore.js';
import { runCli } from './lib/runCli.js';

const USAGE = `usage: npm run credit -- <address> <winc> [--reason REASON] [--id CREDIT_ID] [--json]
  address    arweave (43 chars base64url), ethereum (0x...) or solana/ed25519 (base58) address
  winc       a positive integer amount of winston credits
  --id       names the credit: the same id credits once (default: a random uuid)
  --reason   kept with the credit event, for audits
  --json     print the account's balance body (as the admin API answers) instead of a summary`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {
    reason: { type: 'string' },
    id: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) return undefined;
  if (positionals.length !== 2) throw new UsageError(`expected 2 arguments, got ${positionals.length}`);
  const address = addressArg(positionals[0], 'address');
  const winc = wincArg(positionals[1]);
  const creditId = values.id === undefined ? randomUUID() : argOf(CreditId, values.id, '--id');
  const reason = values.reason === undefined ? undefined : argOf(Reason, values.reason, '--reason');

  return withOperatorStore(async (operations) => {
    const input = { address, winc, creditId, ...(reason !== undefined ? { reason } : {}) };
    const outcome = await operations.credit(input, cliMetadata('credit'));
    const body = creditBody(address, outcome.state, creditId);
    if (values.json) return JSON.stringify(body);
    const what =
      outcome.position === undefined ? `credit ${creditId} was already applied to ${address}` : `credited ${winc} winc to ${address} (credit ${creditId})`;
    return `${what}; available: ${body.winc} winc`;
  });
});
