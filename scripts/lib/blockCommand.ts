import { BlocklistRepository } from '../../src/app/blocklist.js';
import { Operator, Reason } from '../../src/contract/adminSchemas.js';
import { blockAnswerBody } from '../../src/contract/blocklistBody.js';
import { parseBlockTarget } from '../../src/domain/blocklist/target.js';
import { argOf, parseCliArgs, UsageError } from './cliArgs.js';
import { cliMetadata, withExistingEventStore } from './operatorStore.js';

export const blockUsage = (command: 'block' | 'unblock') => `usage: npm run ${command} -- <address> --by <who> --reason <why> [--json]
  address   arweave (43 chars base64url), ethereum (0x...) or solana/ed25519 (base58) address, or an
            owner public key as GET /tx/:id answers it (base64url): it stands for its address. An
            ed25519 key is refused under every signature type that uses it (2, 4, 5, 6), whichever
            of its addresses is given; an ethereum address under types 3 and 7
  --by      who ${command}s it (an operator's name or handle), kept with the event
  --reason  why, kept with the event
  --json    print the answer body (as the admin API answers) instead of a summary
${
  command === 'block'
    ? 'Uploads signed by the address, or naming it as payer in x-paid-by, answer 403 Forbidden; a running\nservice on the same store sees it within seconds.'
    : 'Its uploads are taken again; a running service on the same store sees it within seconds.'
}`;

/** `npm run block` and `npm run unblock`: one change to the block list's stream in the configured store. */
export async function blockCommand(command: 'block' | 'unblock', args: string[]): Promise<string | undefined> {
  const { values, positionals } = parseCliArgs(args, { by: { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return undefined;
  if (positionals.length !== 1) throw new UsageError(`expected 1 argument, got ${positionals.length}`);
  const address = parseBlockTarget(positionals[0]!);
  if (address === undefined) throw new UsageError(`invalid address: ${JSON.stringify(positionals[0])}`);
  const by = argOf(Operator, values.by, '--by');
  const reason = argOf(Reason, values.reason, '--reason');

  return withExistingEventStore(async (eventStore) => {
    const type = command === 'block' ? 'Block' : 'Unblock';
    const result = await new BlocklistRepository(eventStore).execute({ type, data: { address, by, reason, now: Date.now() } }, cliMetadata(command));
    const body = blockAnswerBody(address, result);
    if (values.json) return JSON.stringify(body);
    if (!body.changed) return body.blocked ? `${address} was already blocked (by ${body.entry?.by}: ${body.entry?.reason})` : `${address} was not blocked`;
    return body.blocked ? `blocked ${address}` : `unblocked ${address}`;
  });
}
