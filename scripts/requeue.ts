/**
 * `npm run requeue -- <dataItemId...|--all-failed> --reason R [--by NAME]`: puts FAILED items back in
 * the bundle queue, in the configured event store (the same environment as the service; it may be
 * running: its bundler plans them at its next pass). Each requeue is a DataItemRequeued on the item's
 * stream, with who and why; `npm run history -- <id>` shows it. A paid item whose charge was refunded
 * is charged again first (its payer cannot pay: refused, `Insufficient balance`, it stays FAILED).
 */
import { userInfo } from 'node:os';
import { DataItemId } from '../src/domain/ids.js';
import { ServiceError } from '../src/domain/errors.js';
import { httpErrorOf } from '../src/contract/errorMessages.js';
import { Operator, Reason } from '../src/contract/adminSchemas.js';
import { createRequeue, failedItemsNow, type RequeueOutcome } from '../src/app/requeueItems.js';
import { DataItemRepository } from '../src/app/acceptance/dataItems.js';
import { AccountRepository } from '../src/app/accounts/accounts.js';
import { argOf, parseCliArgs, UsageError } from './lib/cliArgs.js';
import { cliMetadata, withExistingEventStore } from './lib/operatorStore.js';
import { runCli } from './lib/runCli.js';

const USAGE = `usage: npm run requeue -- <dataItemId...> --reason REASON [--by NAME]
       npm run requeue -- --all-failed --reason REASON [--by NAME]
  dataItemId    a FAILED item (43 characters); several may be given
  --all-failed  every item FAILED now, but damaged ones (their stored bytes are bad: upload the item again)
  --reason      why, kept with the requeue event
  --by          who (default: the user running the tool)`;

/** an item refused (unknown, not FAILED, damaged): exit 1 once every other item is done */
class Refused extends Error {
  override readonly name = 'Refused';
}

const line = (outcome: RequeueOutcome): string =>
  outcome.requeued
    ? `requeued ${outcome.id} (it had failed: ${outcome.previousFailure}); it waits for the next bundle`
    : `${outcome.id} was already requeued by ${outcome.already.by} at ${new Date(outcome.already.at).toISOString()} (${outcome.already.reason}): nothing to do`;

const refusalOf = (id: string, error: unknown): string => {
  if (!(error instanceof ServiceError)) throw error;
  const [, message] = httpErrorOf(error.code);
  return `${id}: ${message}`;
};

/** the user running the tool; a container user without a passwd entry has no name: `operator` then */
function currentUser(): string {
  try {
    return process.env.USER || userInfo().username;
  } catch {
    return 'operator';
  }
}

const writeOut = (text: string) => new Promise<void>((resolve) => process.stdout.write(`${text}\n`, () => resolve()));

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {
    'all-failed': { type: 'boolean' },
    reason: { type: 'string' },
    by: { type: 'string' },
  });
  if (values.help) return undefined;
  const all = values['all-failed'] === true;
  if (all && positionals.length > 0) throw new UsageError('give item ids or --all-failed, not both');
  if (!all && positionals.length === 0) throw new UsageError('expected item ids or --all-failed');
  const ids = positionals.map((p) => argOf(DataItemId, p, 'dataItemId'));
  const reason = argOf(Reason, values.reason, '--reason');
  const by = argOf(Operator, values.by ?? currentUser(), '--by');

  return withExistingEventStore(async (eventStore) => {
    const requeue = createRequeue({ items: new DataItemRepository(eventStore), accounts: new AccountRepository(eventStore), now: Date.now });
    const metadata = cliMetadata('requeue');
    const lines: string[] = [];
    const refusals: string[] = [];
    let damaged: string[] = [];
    let targets: string[] = ids;
    if (all) {
      const now = await failedItemsNow(eventStore);
      targets = now.failed;
      damaged = now.damaged;
      if (targets.length === 0) lines.push('no item out of bundle attempts to requeue');
    }
    for (const id of targets) {
      try {
        lines.push(line(await requeue({ id, by, reason }, metadata)));
      } catch (error) {
        refusals.push(refusalOf(id, error));
      }
    }
    for (const id of damaged) lines.push(`${id}: damaged (its stored bytes are not the accepted ones), not requeued: upload the same item again to repair it`);
    if (all) {
      const requeued = lines.filter((l) => l.startsWith('requeued ')).length;
      lines.push(`${requeued} requeued${damaged.length > 0 ? `; ${damaged.length} damaged, waiting for a new upload` : ''}`);
    }
    if (refusals.length > 0) {
      // what was done is said before the refusals, so a partial run is never mistaken for none
      if (lines.length > 0) await writeOut(lines.join('\n'));
      throw new Refused(refusals.join('\nerror: '));
    }
    return lines.join('\n');
  });
});
