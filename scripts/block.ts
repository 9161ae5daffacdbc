/**
 * `npm run block -- <address> --by <who> --reason <why> [--json]`: puts an address on the block list
 * in the configured event store (the service may be running: it sees the change within seconds).
 */
import { blockCommand, blockUsage } from './lib/blockCommand.js';
import { runCli } from './lib/runCli.js';

await runCli(blockUsage('block'), () => blockCommand('block', process.argv.slice(2)));
