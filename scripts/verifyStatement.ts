/**
 * `npm run verify-statement -- <file> --service <url>` (or `--address <wallet address>` or
 * `--public <modulus>`, offline): checks a saved account statement (`GET /account/statement/:address`)
 * was signed by the service wallet and not changed since: its RSA-PSS signature over the canonical
 * JSON of its fields (src/receipts/statementMessage.ts), by a key whose address is the service's.
 */
import { readFile } from 'node:fs/promises';
import { verifyStatement } from '../src/receipts/statementMessage.js';
import { parseCliArgs, UsageError } from './lib/cliArgs.js';
import { runCli } from './lib/runCli.js';

const USAGE = `usage: npm run verify-statement -- <file> --service <url>
       npm run verify-statement -- <file> --address <address> | --public <modulus>
  file       a statement saved as JSON
  --service  the upload service's origin: its wallet address is read from GET <service>/info (addresses.arweave)
  --address  the service wallet's address (offline)
  --public   the service wallet's RSA modulus n, base64url (offline)
exit: 0 the signature holds, 1 it does not (reason on stderr), 2 bad command line`;

/** the statement does not verify */
class StatementInvalid extends Error {
  override readonly name = 'StatementInvalid';
}

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {
    service: { type: 'string' },
    address: { type: 'string' },
    public: { type: 'string' },
  });
  if (values.help) return undefined;
  if (positionals.length !== 1) throw new UsageError(`expected 1 statement file, got ${positionals.length}`);
  const given = [values.service, values.address, values.public].filter((v) => v !== undefined);
  if (given.length !== 1) throw new UsageError('give one of --service, --address, --public');
  let statement: unknown;
  try {
    statement = JSON.parse(await readFile(positionals[0]!, 'utf8'));
  } catch (error) {
    throw new StatementInvalid(`cannot read ${positionals[0]}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const address = values.service !== undefined ? await serviceAddress(values.service) : values.address;
  const verdict = verifyStatement(statement, {
    ...(address !== undefined ? { address } : {}),
    ...(values.public !== undefined ? { publicModulus: values.public } : {}),
  });
  if (!verdict.valid) throw new StatementInvalid(`statement does not verify: ${verdict.reason}`);
  const s = statement as { address: string; entries: unknown[]; balance: { winc: string } };
  return `statement of ${s.address} verifies: ${s.entries.length} entries, balance ${s.balance.winc} winc, signed by the service wallet`;
});

async function serviceAddress(service: string): Promise<string> {
  let url: string;
  try {
    url = `${new URL(service).href.replace(/\/+$/, '')}/info`;
  } catch {
    throw new UsageError(`invalid --service: ${JSON.stringify(service)}`);
  }
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new Error(`the service answers ${res.status} to GET ${url}`);
  const info = (await res.json()) as { addresses?: { arweave?: unknown } };
  if (typeof info.addresses?.arweave !== 'string') throw new Error(`GET ${url} names no arweave address`);
  return info.addresses.arweave;
}
