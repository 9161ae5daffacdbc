/**
 * `npm run quarantine -- <dataItemId> --reason R [--by NAME] [--json]` holds an accepted item (and the
 * items nested in it) out of bundling and out of every read of its bytes (451), in the configured
 * stores (the service may be running: its bundler and readers see the hold at once, through the
 * stores). `npm run quarantine -- release <dataItemId> --reason R [--by NAME]` lifts it. Each is an
 * event on the item's stream with who and why; `npm run history -- <id>` shows them. An item whose
 * bundle is already signed or posted is on Arweave: refused, nothing recorded (src/app/quarantine.ts).
 */
import { userInfo } from 'node:os';
import { DataItemId } from '../src/domain/ids.js';
import { Operator, Reason } from '../src/contract/adminSchemas.js';
import { holdAnswerBody, releaseAnswerBody } from '../src/contract/quarantineBody.js';
import { createQuarantine } from '../src/app/quarantine.js';
import { DataItemRepository } from '../src/app/acceptance/dataItems.js';
import { BundleRepository } from '../src/app/bundles.js';
import { createCheckpointWaiter } from '../projections/checkpointWaiter.js';
import { allProjections } from '../projections/index.js';
import { argOf, parseCliArgs, UsageError } from './lib/cliArgs.js';
import { cliMetadata } from './lib/operatorStore.js';
import { withAuditorStores } from './lib/auditorStores.js';
import { runCli } from './lib/runCli.js';

const USAGE = `usage: npm run quarantine -- <dataItemId> --reason REASON [--by NAME] [--json]
       npm run quarantine -- release <dataItemId> --reason REASON [--by NAME] [--json]
  dataItemId  an accepted item (43 characters); the items nested in it are held with it. A nested
              item alone is refused: its bytes are its root item's, hold the root
  release     lift the hold: the item waits for a bundle again and is served
  --reason    why, kept with the event
  --by        who (default: the user running the tool)
  --json      print the answer body (as the admin API answers) instead of a summary
Held, the item is put in no bundle (a bundle planned with it and not yet signed is dropped and its
other items planned again) and GET /:id answers 451. An item whose bundle is signed or posted is on
Arweave: refused (exit 1), nothing recorded.`;

/** how long the hold waits for a running service's read models to show it before it looks for the item's bundle */
const PROJECTION_WAIT_MS = 5_000;

/** the user running the tool; a container user without a passwd entry has no name: `operator` then */
function currentUser(): string {
  try {
    return process.env.USER || userInfo().username;
  } catch {
    return 'operator';
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), { reason: { type: 'string' }, by: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return undefined;
  const release = positionals[0] === 'release';
  const ids = release ? positionals.slice(1) : positionals;
  if (ids.length !== 1) throw new UsageError(`expected 1 item id, got ${ids.length}`);
  const id = argOf(DataItemId, ids[0], 'dataItemId');
  const reason = argOf(Reason, values.reason, '--reason');
  const by = argOf(Operator, values.by ?? currentUser(), '--by');

  // the configured stores, refused when absent (nothing created): the event store it writes to, and the
  // read store where a hold finds the item's bundle plan and, for a nested item, its root
  return withAuditorStores({ readStore: 'required', blobStore: false }, async ({ eventStore, readStore }) => {
    const checkpoints = createCheckpointWaiter(readStore!, allProjections);
    const quarantine = createQuarantine({
      items: new DataItemRepository(eventStore),
      bundles: new BundleRepository(eventStore),
      readStore: readStore!,
      now: Date.now,
      awaitProjection: (position) => checkpoints.waitFor(position, PROJECTION_WAIT_MS),
    });
    const metadata = cliMetadata(release ? 'release' : 'quarantine');
    if (release) {
      const outcome = await quarantine.release({ id, by, reason }, metadata);
      if (values.json) return JSON.stringify(releaseAnswerBody(outcome));
      return outcome.released ? `released ${id}: it waits for a bundle again and is served` : `${id} was not held: nothing to do`;
    }
    const outcome = await quarantine.hold({ id, by, reason }, metadata);
    if (values.json) return JSON.stringify(holdAnswerBody(outcome));
    if (!outcome.held) return `${id} was already held by ${outcome.already.by} at ${iso(outcome.already.at)} (${outcome.already.reason}): nothing to do`;
    const dropped = outcome.droppedPlan !== undefined ? `; bundle ${outcome.droppedPlan} (not yet signed) dropped, its other items planned again` : '';
    return `held ${id}: in no bundle and not served (451) until released${dropped}`;
  });
});
