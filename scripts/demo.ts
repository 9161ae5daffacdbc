/**
 * `npm run demo`: the whole path of an upload on one machine, with real parts. Starts arlocal (a
 * local Arweave gateway) and the service, uploads items with turbo-sdk (one request, and multi-part)
 * and with arbundles (posted with fetch), then follows them while the bundler bundles them, posts the
 * bundle to arlocal and this script mines blocks, until every item is FINALIZED; then shows where
 * each item sits in its bundle and reads it back from arlocal there.
 *
 *   npm run demo -- [--keep] [--timeout 180]
 *
 * Exit 0 when every item is FINALIZED, 1 otherwise (or after the timeout), 130 on Ctrl-C, 2 for a
 * bad command line. Both children are stopped and the temp directory removed on every way out;
 * `--keep` leaves them running until Ctrl-C.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseCliArgs, UsageError } from './lib/cliArgs.js';
import { startDemoEnvironment, type DemoEnvironment, type DemoSettings } from './lib/demoEnvironment.js';
import type { ItemStatus } from './lib/demoFollow.js';
import type { DemoClients, DemoItem } from './lib/demoUploads.js';
import { generateArweaveJwk } from './lib/demoWallet.js';
import { bestEffort } from '../src/bestEffort.js';

const usage = 'usage: npm run demo -- [--keep] [--timeout SECONDS (default 180)]';
const ITEMS = 4;
const CREDIT_WINC = '1000000000000'; // 1 AR
const START_WAIT_MS = 30_000;
const settings: DemoSettings = { bundlerIntervalMs: 500, confirmations: 3, bundleMaxItems: ITEMS, bundleMaxWaitMs: 30_000 };

const say = (line = '') => process.stdout.write(`${line}\n`);
const complain = (line: string) => process.stderr.write(`${line}\n`);

let options: { keep: boolean; timeoutMs: number };
try {
  const { values } = parseCliArgs(process.argv.slice(2), { keep: { type: 'boolean' }, timeout: { type: 'string' } });
  if (values.help) {
    say(usage);
    process.exit(0);
  }
  const seconds = Number(values.timeout ?? '180');
  if (!Number.isInteger(seconds) || seconds < 1) throw new UsageError(`invalid --timeout: ${JSON.stringify(values.timeout)}`);
  options = { keep: values.keep === true, timeoutMs: seconds * 1000 };
} catch (error) {
  complain(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  process.exit(2);
}

const controller = new AbortController();
/** what the demo is doing, for the message of a failure or a timeout */
let step = 'starting arlocal and the service';
let started: Promise<DemoEnvironment | undefined> = Promise.resolve(undefined);
let finishing = false;

/** Stops both children and removes the temp directory, then exits with `code`. */
async function finish(code: number, lines: string[] = []): Promise<never> {
  if (finishing) return new Promise<never>(() => {});
  finishing = true;
  for (const line of lines) (code === 0 ? say : complain)(line);
  controller.abort();
  // a start still under way ends at its next step (or fails); bounded, in case a child hangs there:
  // then the exit handlers remove the directories and kill what they know of
  const env = await Promise.race([started, sleep(START_WAIT_MS)]);
  if (env) {
    if (code !== 0) complainWithLogs(env);
    await env.close();
  }
  process.exit(code);
}

function complainWithLogs(env: DemoEnvironment) {
  const log = env.service.stderr().trim().split('\n').slice(-20).join('\n');
  if (log) complain(`The service's last log lines:\n${log}`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // a second Ctrl-C does not wait: the exit handlers kill the children and remove the directories
    if (finishing) process.exit(130);
    const kept = options.keep && step === 'kept running';
    void finish(kept ? 0 : 130, [kept ? `Stopping (${signal}).` : `Interrupted (${signal}) while ${step}.`]);
  });
}

const timer = setTimeout(() => void finish(1, [`Demo failed: not done within ${options.timeoutMs / 1000} s (while ${step}).`]), options.timeoutMs);

async function main(): Promise<void> {
  say(`Permaweb upload service demo: ${ITEMS} uploads with turbo-sdk and arbundles, followed until FINALIZED on a local gateway.`);
  say();
  // turbo-sdk and arbundles take seconds to load, and the wallet key seconds to generate: both go
  // on while arlocal and the service start (awaited below; a failure before then is not unhandled)
  const modules = Promise.all([import('./lib/demoUploads.js'), import('./lib/demoFollow.js')]);
  const walletKey = generateArweaveJwk();
  for (const pending of [modules, walletKey]) pending.catch(() => {}); // handled: awaited below
  const starting = startDemoEnvironment(settings, say, controller.signal);
  started = bestEffort(starting, 'a start that failed left nothing to stop (and is reported below)');
  const env = await starting;
  const url = env.service.url;
  const serviceAddress = await infoField<{ arweave: string }>(url, 'addresses').then((a) => a.arweave);
  step = 'loading turbo-sdk and arbundles';
  const [uploads, follow] = await modules;
  const { arbundlesPost, makeClients, MULTIPART_BYTES, showReceipt, turboMultipart, turboSingle } = uploads;
  const { checkOffsets, followUntilFinalized, printSummary } = follow;

  step = 'generating a wallet for the uploads';
  say();
  const clients = makeClients(url, await walletKey);
  say(`The demo's own Arweave wallet (RSA 4096, generated while the service started): ${clients.arweaveAddress}`);
  step = 'crediting the demo wallet';
  const freeLimit = await infoField<number>(url, 'freeUploadLimitBytes');
  await credit(env, clients.arweaveAddress);
  say(`  credited 1 AR (${CREDIT_WINC} winc) to it through the admin API: items above ${freeLimit} bytes are charged`);

  const items: DemoItem[] = [];
  const upload = async (title: string, run: () => Promise<DemoItem>) => {
    step = `uploading: ${title}`;
    say();
    say(`${items.length + 1}. ${title}`);
    const item = await run();
    items.push(item);
    await showReceipt(item, serviceAddress, say);
    return item;
  };
  await upload('turbo-sdk, one request (POST /v1/tx/arweave), signed with the demo wallet: a line of text', () => turboSingle(clients));
  const multipart = await upload(
    `turbo-sdk, multi-part (chunkingMode 'force'): ${MULTIPART_BYTES / 2 ** 20} MiB in 5 MiB chunks, finalized in the background`,
    () => turboMultipart(clients),
  );
  await showCharge(url, clients, multipart);
  await upload('arbundles, an item signed with an Ethereum key, posted with fetch to POST /v1/tx', () => arbundlesPost(url, 'ethereum'));
  await upload('arbundles, an item signed with a Solana key, posted with fetch to POST /v1/tx', () => arbundlesPost(url, 'solana'));

  step = 'following the items until FINALIZED';
  say();
  say(`Following the items (GET /v1/tx/:id/status); this script mines a block on arlocal whenever a bundle waits for confirmations:`);
  const statuses = new Map<string, ItemStatus>();
  try {
    await followUntilFinalized(env, items, statuses, say, controller.signal);
  } catch (error) {
    // after Ctrl-C or the timeout the clean-up is under way: its lines come last
    if (!controller.signal.aborted) printSummary(items, statuses, say);
    throw error;
  }

  step = 'checking the offsets';
  say();
  say('Where each item is in its bundle (GET /v1/tx/:id/offsets), checked against the bundle as arlocal serves it:');
  const { problems } = await checkOffsets(env, items, say);

  printSummary(items, statuses, say);
  if (problems.length > 0) throw new Error(`offsets do not match the bundle:\n  ${problems.join('\n  ')}`);
  say(`All ${items.length} items are FINALIZED.`);
  clearTimeout(timer);

  if (options.keep) {
    step = 'kept running';
    say();
    say(`--keep: the service stays at ${url} (admin token ${env.adminToken}), arlocal at ${env.arlocal.url}.`);
    say(`  arlocal mines only when asked: curl ${env.arlocal.url}/mine`);
    say(`  Press Ctrl-C to stop both and remove ${env.dir}.`);
    setInterval(() => {}, 60_000);
    return;
  }
  await finish(0);
}

async function showCharge(url: string, clients: DemoClients, item: DemoItem) {
  const response = await fetch(`${url}/v1/account/balance/${clients.arweaveAddress}`);
  const balance = (await response.json()) as { winc: string };
  say(`   it was above the free limit: charged ${item.receipt.winc} winc; the wallet's balance is now ${balance.winc} winc`);
}

async function credit(env: DemoEnvironment, address: string) {
  const response = await fetch(`${env.service.url}/v1/admin/accounts/${address}/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ winc: CREDIT_WINC, creditId: 'demo', reason: 'npm run demo' }),
  });
  if (response.status !== 200) throw new Error(`the admin credit answered HTTP ${response.status}: ${await response.text()}`);
}

async function infoField<T>(url: string, field: string): Promise<T> {
  const info = (await (await fetch(`${url}/v1/info`)).json()) as Record<string, unknown>;
  return info[field] as T;
}

main().catch((error) => finish(1, [`Demo failed while ${step}: ${error instanceof Error ? error.message : String(error)}`]));
