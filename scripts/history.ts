/**
 * `npm run history -- <dataItemId|uploadId|address|planId|blocklist> [--json]`: the events of the stream the
 * argument names, in order, one readable line each (or the recorded events as a JSON array), read
 * from the configured event store; for a data item, where it is now. The service may be running.
 */
import { history, NotAnId } from '../src/history/history.js';
import { ansiDim, plain } from '../src/history/lines.js';
import { withAuditorStores } from './lib/auditorStores.js';
import { parseCliArgs, UsageError } from './lib/cliArgs.js';
import { runCli } from './lib/runCli.js';
import { writeLine } from './lib/stdoutLines.js';

const USAGE = `usage: npm run history -- <dataItemId|uploadId|address|planId|blocklist> [--json]
  dataItemId  an accepted item's id (43 chars base64url)
  uploadId    a multi-part upload's id
  address     an account: arweave (43 chars base64url), ethereum (0x...) or solana/ed25519 (base58)
  planId      a bundle plan's id
  blocklist   the operator's block list: who blocked or unblocked which address, when and why
  token:txId  a top-up's claim, by the credit id its account's history shows (arweave:<tx id>, ethereum:0x...)
  --json      print the stream's recorded events as a JSON array (revisions and positions as strings)
exit: 0 printed, 1 nothing has that id (or the store cannot be read), 2 bad command line or configuration`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), { json: { type: 'boolean' } });
  if (values.help) return undefined;
  if (positionals.length !== 1) throw new UsageError(`expected 1 argument, got ${positionals.length}`);
  const argument = positionals[0]!;
  const dim = process.stdout.isTTY && !process.env['NO_COLOR'] ? ansiDim : plain;

  return withAuditorStores({ readStore: 'optional', blobStore: false }, async ({ eventStore, readStore }) => {
    // every piece but the last is written as it comes; the last is runCli's output
    let previous: string | undefined;
    try {
      for await (const piece of history({ eventStore, readStore }, argument, { json: values.json ?? false, dim })) {
        if (previous !== undefined) await writeLine(previous);
        previous = piece;
      }
    } catch (error) {
      if (error instanceof NotAnId) throw new UsageError(error.message);
      throw error;
    }
    return previous;
  });
});
