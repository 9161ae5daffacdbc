/**
 * `npm run verify-proof -- <dataItemId> --service <url> --gateway <url>` (or `--proof <file>` for a
 * proof saved earlier): checks the item's proof of permanence (`GET /tx/:id/proof`) against an
 * Arweave gateway without trusting the service (scripts/lib/proofCheck.ts lists the checks).
 */
import { readFile } from 'node:fs/promises';
import { checkProof, ProofCheckFailed } from './lib/proofCheck.js';
import { parseCliArgs, UsageError } from './lib/cliArgs.js';
import { runCli } from './lib/runCli.js';

const USAGE = `usage: npm run verify-proof -- <dataItemId> --service <url> --gateway <url> [--timeout-ms <ms>]
       npm run verify-proof -- --proof <file> --gateway <url> [--timeout-ms <ms>]
  dataItemId   the item whose proof is asked of the service (GET <service>/tx/<id>/proof)
  --service    the upload service's origin
  --proof      a proof saved as JSON, instead of asking the service
  --gateway    the Arweave gateway to check it against (https://arweave.net, arlocal, ...)
  --timeout-ms each request's time limit (default 120000); the item's chunks are downloaded whole
exit: 0 every check holds (summary on stdout), 1 a check failed (named on stderr), 2 bad command line`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {
    service: { type: 'string' },
    proof: { type: 'string' },
    gateway: { type: 'string' },
    'timeout-ms': { type: 'string' },
  });
  if (values.help) return undefined;
  const gateway = originOf(values.gateway, '--gateway');
  const timeoutMs = Number(values['timeout-ms'] ?? 120_000);
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`invalid --timeout-ms: ${values['timeout-ms']}`);
  let proof: unknown;
  if (values.proof !== undefined) {
    if (positionals.length > 0 || values.service !== undefined) throw new UsageError('--proof takes no item id and no --service');
    proof = JSON.parse(await readFile(values.proof, 'utf8'));
  } else {
    if (positionals.length !== 1) throw new UsageError(`expected 1 item id, got ${positionals.length}`);
    const id = positionals[0]!;
    const url = `${originOf(values.service, '--service')}/tx/${encodeURIComponent(id)}/proof`;
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status !== 200) throw new Error(`the service answers ${res.status} to GET ${url}: ${(await res.text()).slice(0, 200)}`);
    proof = await res.json();
    if ((proof as { id?: unknown }).id !== id) throw new ProofCheckFailed('shape', `the service answered a proof of ${String((proof as { id?: unknown }).id)}`);
  }
  return (await checkProof(proof, { url: gateway, timeoutMs })).join('\n');
});

function originOf(value: string | undefined, name: string): string {
  if (value === undefined) throw new UsageError(`${name} is required`);
  try {
    return new URL(value).href.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`invalid ${name}: ${JSON.stringify(value)}`);
  }
}
