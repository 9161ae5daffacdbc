/**
 * `npm run approve -- <payer> <owner> <winc> [--expires ISO] [--json]` lets `owner`'s uploads be paid
 * by `payer` (when the upload names the payer in `x-paid-by`), up to `winc` from now on; it replaces
 * any earlier approval. `npm run approve -- --revoke <payer> <owner>` withdraws it.
 */
import { balanceBody } from '../src/contract/balanceBody.js';
import { addressArg, expiresArg, parseCliArgs, UsageError, wincArg } from './lib/cliArgs.js';
import { cliMetadata, withOperatorStore } from './lib/operatorStore.js';
import { runCli } from './lib/runCli.js';

const USAGE = `usage: npm run approve -- <payer> <owner> <winc> [--expires ISO_DATE] [--json]
       npm run approve -- --revoke <payer> <owner> [--json]
  payer      the account that pays
  owner      the address whose uploads it pays for
  winc       the most it pays from now on, a positive integer (replaces an earlier approval)
  --expires  when the approval ends, ISO 8601 with time and offset (2030-01-01T00:00:00Z)
  --revoke   withdraw the approval instead
  --json     print the payer's balance body (as the admin API answers) instead of a summary`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {
    expires: { type: 'string' },
    revoke: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) return undefined;
  const expected = values.revoke ? 2 : 3;
  if (positionals.length !== expected) throw new UsageError(`expected ${expected} arguments, got ${positionals.length}`);
  if (values.revoke && values.expires !== undefined) throw new UsageError('--expires does not go with --revoke');
  const payer = addressArg(positionals[0], 'payer');
  const approvedAddress = addressArg(positionals[1], 'owner');
  const metadata = cliMetadata('approve');

  if (values.revoke) {
    return withOperatorStore(async (operations) => {
      const outcome = await operations.revoke({ payer, approvedAddress }, metadata);
      if (values.json) return JSON.stringify(balanceBody(payer, outcome.state));
      return outcome.position === undefined
        ? `${payer} had no approval for ${approvedAddress}; nothing changed`
        : `${payer} no longer pays for ${approvedAddress}`;
    });
  }

  const winc = wincArg(positionals[2]);
  const expiresAt = values.expires === undefined ? undefined : expiresArg(values.expires);
  return withOperatorStore(async (operations) => {
    const input = { payer, approvedAddress, winc, ...(expiresAt !== undefined ? { expiresAt } : {}) };
    const outcome = await operations.approve(input, metadata);
    const body = balanceBody(payer, outcome.state);
    if (values.json) return JSON.stringify(body);
    const until = expiresAt === undefined ? '' : ` until ${new Date(expiresAt).toISOString()}`;
    return `${payer} pays up to ${winc} winc for ${approvedAddress}${until}; payer available: ${body.winc} winc`;
  });
});
