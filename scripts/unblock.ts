/**
 * `npm run unblock -- <address> --by <who> --reason <why> [--json]`: takes an address off the block
 * list in the configured event store (the service may be running: it sees the change within seconds).
 */
import { blockCommand, blockUsage } from './lib/blockCommand.js';
import { runCli } from './lib/runCli.js';

await runCli(blockUsage('unblock'), () => blockCommand('unblock', process.argv.slice(2)));
