/**
 * `npm run rebuild -- [projection ...] [--drop-old] [--batch-size N]`: builds read models again from
 * the first event beside the live ones, then switches to them, in the configured stores; the service
 * may keep running and answering meanwhile. Progress on stderr, the outcome on stdout.
 */
import { allProjections } from '../projections/index.js';
import { rebuild } from '../projections/rebuild.js';
import { parseCliArgs, UsageError } from './lib/cliArgs.js';
import { progressReporter } from './lib/progress.js';
import { withRebuildStores } from './lib/rebuildStores.js';
import { runCli } from './lib/runCli.js';

const names = allProjections.map((p) => p.name);

const USAGE = `usage: npm run rebuild -- [projection ...] [--drop-old] [--batch-size N]
  projection    which read models to rebuild (default: all): ${names.join(', ')}
  --drop-old    then drop the read models (and checkpoints) of older versions of these projections,
                name_v1 .. name_v(N-1): only once no process of an older version runs
  --batch-size  events read and committed at a time (default 5000)
exit: 0 switched to the rebuilt read models, 1 failed (the live ones are untouched), 2 bad command line or configuration`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {
    'drop-old': { type: 'boolean' },
    'batch-size': { type: 'string' },
  });
  if (values.help) return undefined;
  const unknown = positionals.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new UsageError(`unknown projection: ${unknown.join(', ')} (known: ${names.join(', ')})`);
  const projections = positionals.length === 0 ? allProjections : allProjections.filter((p) => positionals.includes(p.name));
  const batchSize = values['batch-size'] === undefined ? 5000 : Number(values['batch-size']);
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new UsageError(`invalid --batch-size: ${JSON.stringify(values['batch-size'])}`);

  return withRebuildStores(async ({ eventStore, readStore }) => {
    const progress = progressReporter(process.stderr, { label: 'rebuild' });
    const started = Date.now();
    const result = await rebuild({
      eventStore,
      readStore,
      projections,
      batchSize,
      dropOld: values['drop-old'] ?? false,
      onProgress: (done, total, rate) => progress.update(done, total, rate),
    });
    progress.finish();
    if (result.promoted.length === 0) return 'the event store is empty: nothing to rebuild';
    const seconds = (Date.now() - started) / 1000;
    const models = `${result.promoted.length} read model${result.promoted.length === 1 ? '' : 's'}`;
    const rate = Math.round(result.events / Math.max(seconds, 0.001));
    return [
      ...result.promoted.map((p) => `switched to the rebuilt ${p.collection} (at position ${p.position})`),
      ...result.dropped.map((collection) => `dropped ${collection}`),
      `rebuilt ${models} from ${result.events} events in ${seconds.toFixed(1)} s (${rate} events/s)`,
    ].join('\n');
  });
});
