/**
 * `npm run audit [-- --json] [--concurrency N]`: re-reads every event of the configured stores and
 * checks the invariants of DESIGN.md section 6 (blobs, signatures, receipts, balances, bundle
 * layout, live bundles, settlements). One line per finding, then a summary; exits 1 on any finding.
 * It only reads, so it may run while the service runs (it audits the log up to its head at start).
 */
import { runAudit } from '../src/audit/audit.js';
import { findingLine, jsonClosing, jsonFinding, jsonOpening, summaryText } from '../src/audit/report.js';
import { readServicePublicModulus } from '../src/audit/serviceKey.js';
import { transferSourcesOf } from '../src/app/accounts/topUpChains.js';
import { createX402ChainReader } from '../src/adapters/x402/settlement.js';
import { withAuditorStores } from './lib/auditorStores.js';
import { argOf, parseCliArgs, UsageError } from './lib/cliArgs.js';
import { runCli } from './lib/runCli.js';
import { writeStdout } from './lib/stdoutLines.js';
import { listReceiptsMissing } from './lib/backup/listReceiptsMissing.js';
import { z } from 'zod';

const USAGE = `usage: npm run audit -- [--json] [--concurrency N] [--blob-grace-minutes M] [--compare-with <old DATA_DIR>]
  checks: every accepted item's blob (present, size, sha256), its bytes (signature, id) and receipt;
          every account's read model against its events, and no negative balance or approval;
          every bundle plan's offsets; no item in two live bundles; every paid item settled once;
          every settled x402 payment credited once, none that did not settle (against the chain);
          no blob without its event (items/<id> never accepted, uploads/<id>/ of an upload ended or unknown)
  --json                print {"findings": [...], "head", "checked", "findingCount", "receiptKeyChecked", "blobGraceMs"}
  --concurrency         blobs read at once (default: the number of cores)
  --blob-grace-minutes  blobs changed more recently are not judged for their event: a running service
                        may be writing them (default 60)
  --compare-with        after a restore: also list the items the event store of <old DATA_DIR> (SQLite)
                        accepted, and so receipted, that this one has not (receipted after the backup);
                        each listed one counts as a finding (not with --json)
exit: 0 no findings, 1 findings (or the audit could not run), 2 bad command line or configuration`;

/** findings were reported: runCli exits 1 and names how many on stderr */
class AuditFindings extends Error {
  override readonly name = 'AuditFindings';
}

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {
    json: { type: 'boolean' },
    concurrency: { type: 'string' },
    'blob-grace-minutes': { type: 'string' },
    'compare-with': { type: 'string' },
  });
  if (values.help) return undefined;
  if (positionals.length !== 0) throw new UsageError(`expected no arguments, got ${positionals.length}`);
  const concurrency =
    values.concurrency === undefined ? undefined : argOf(z.coerce.number().int().min(1).max(256), values.concurrency, '--concurrency (1 to 256)');
  const graceMinutes = values['blob-grace-minutes'];
  const blobGraceMs = graceMinutes === undefined ? undefined : argOf(z.coerce.number().min(0), graceMinutes, '--blob-grace-minutes (0 or more)') * 60_000;
  const json = values.json ?? false;
  const compareWith = values['compare-with'];
  if (json && compareWith !== undefined) throw new UsageError('--compare-with prints lines: not with --json');

  return withAuditorStores({ readStore: 'required', blobStore: true }, async ({ config, eventStore, readStore, blobStore }) => {
    const servicePublicModulus = await readServicePublicModulus(config);
    let first = true;
    if (json) await writeStdout(jsonOpening);
    const summary = await runAudit(
      {
        eventStore,
        readStore: readStore!,
        blobStore: blobStore!,
        servicePublicModulus,
        now: Date.now,
        // top-up credits are re-read from the chains the service is configured with (GATEWAY_URL, ETHEREUM_RPC_URL)
        transfers: transferSourcesOf(config),
        // x402 payments are re-read from the USDC contracts of X402_NETWORKS; a settlement is in flight for as long as the service's own recovery waits
        ...(config.x402
          ? {
              x402: {
                chains: new Map(
                  await Promise.all(config.x402.networks.map(async (n) => [n.network, await createX402ChainReader(n, config.x402!.rpcTimeoutMs)] as const)),
                ),
                graceMs: 7 * config.x402.rpcTimeoutMs,
              },
            }
          : {}),
        ...(concurrency !== undefined ? { concurrency } : {}),
        ...(blobGraceMs !== undefined ? { blobGraceMs } : {}),
      },
      (finding) => {
        // findings come from a synchronous callback: written without waiting, stdout buffers them
        process.stdout.write(json ? jsonFinding(finding, first) : `${findingLine(finding)}\n`);
        first = false;
      },
    );
    const closing = json ? jsonClosing(summary) : summaryText(summary);
    const missing = compareWith === undefined ? 0 : await listReceiptsMissing(eventStore, compareWith);
    const findings = summary.findings + missing;
    if (findings === 0) return closing;
    await writeStdout(`${closing}\n`);
    throw new AuditFindings(`the audit found ${findings} finding${findings === 1 ? '' : 's'}`);
  });
});
