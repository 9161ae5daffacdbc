/**
 * `npm run blocklist [-- --json]`: the blocked addresses, who blocked each, when and why, as the block
 * list's stream in the configured event store says now.
 */
import { BlocklistRepository } from '../src/app/blocklist.js';
import { BLOCKLIST_KEY } from '../src/domain/blocklist/decider.js';
import { blocklistBody } from '../src/contract/blocklistBody.js';
import { parseCliArgs, UsageError } from './lib/cliArgs.js';
import { withExistingEventStore } from './lib/operatorStore.js';
import { runCli } from './lib/runCli.js';

const USAGE = `usage: npm run blocklist [-- --json]
  --json  print the list body (as the admin API answers) instead of one line per address
(the changes themselves, with who made them and why: npm run history -- blocklist)`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), { json: { type: 'boolean' } });
  if (values.help) return undefined;
  if (positionals.length !== 0) throw new UsageError(`expected no argument, got ${positionals.length}`);
  return withExistingEventStore(async (eventStore) => {
    const state = await new BlocklistRepository(eventStore).read(BLOCKLIST_KEY);
    const body = blocklistBody([...state].map(([address, block]) => ({ address, ...block })));
    if (values.json) return JSON.stringify(body);
    if (body.blocked.length === 0) return 'no address is blocked';
    return body.blocked.map((b) => `${b.address}  since ${b.since}  by ${b.by}: ${b.reason}`).join('\n');
  });
});
