import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startArlocal, type Arlocal } from './arlocal.js';
import { startServiceProcess, type ServiceProcess } from './serviceProcess.js';

/**
 * What `npm run demo` runs: arlocal (a real local Arweave gateway) and the service as `npm start`
 * runs it, in a child process on loopback with a fresh data directory, tuned so that a bundle is
 * made, posted and made permanent within seconds.
 */
export interface DemoEnvironment {
  /** the temp directory holding the service's data; removed by `close()` */
  readonly dir: string;
  readonly arlocal: Arlocal;
  readonly service: ServiceProcess;
  /** bearer token of the service's /admin API (random, for this run only) */
  readonly adminToken: string;
  readonly settings: DemoSettings;
  /** stops the service (SIGTERM, then SIGKILL if it lingers) and arlocal, removes the directory; safe to call twice */
  close(): Promise<void>;
}

export interface DemoSettings {
  /** bundler pass interval */
  bundlerIntervalMs: number;
  /** confirmations after which a bundle is permanent: small, so few blocks are mined */
  confirmations: number;
  /** a bundle is sent once it holds this many items (the demo's items make one bundle) ... */
  bundleMaxItems: number;
  /** ... or once its oldest item waited this long */
  bundleMaxWaitMs: number;
}

/** Winston minted to the service wallet on arlocal: arlocal refuses a transaction whose wallet cannot pay its reward. */
const SERVICE_WALLET_MINT = '100000000000000'; // 100 AR
const STOP_GRACE_MS = 10_000;

/**
 * Configuration variables that would change what the demo shows if the caller's environment set them
 * (the service process inherits it): an empty value is read as unset.
 */
const RESET = [
  'ROLE',
  'WALLET_FILE',
  'EVENT_STORE',
  'EVENTSTORE_URL',
  'READ_STORE',
  'BLOB_STORE',
  'MONGO_URL',
  'MONGO_DATABASE',
  'PRICING_SOURCE',
  'PRICE_WINC_PER_BYTE',
  'PRICE_MARGIN_PERCENT',
  'FREE_UPLOAD_LIMIT_BYTES',
  'MAX_DATA_ITEM_SIZE',
  'DATA_CACHES',
  'FAST_FINALITY_INDEXES',
  'BUNDLE_MAX_BYTES',
  'MAX_BUNDLE_ATTEMPTS',
  'GATEWAY_TIMEOUT_MS',
  'PROJECTION_WAIT_MS',
  'UPLOAD_LIFETIME_MS',
  'DEADLINE_HEIGHT_OFFSET',
  'OFFSETS_RETENTION_DAYS',
];

/**
 * Starts both, each step (and the clean-up) reported through `say`. Whatever started before a
 * failure (or before `signal` aborted the start) is stopped and removed before the error is thrown,
 * and a process exit without `close()` still kills the children and removes the directory.
 */
export async function startDemoEnvironment(settings: DemoSettings, say: (line: string) => void, signal: AbortSignal): Promise<DemoEnvironment> {
  const dir = await mkdtemp(join(tmpdir(), 'permaweb-demo-'));
  const adminToken = randomBytes(24).toString('base64url');
  let arlocal: Arlocal | undefined;
  let service: ServiceProcess | undefined;

  const leftover = () => {
    service?.process.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', leftover);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      say(`Cleaning up: stopping the service and arlocal, removing ${dir}`);
      if (service) await stopService(service);
      await arlocal?.stop();
      await rm(dir, { recursive: true, force: true });
      process.removeListener('exit', leftover);
    })());

  say(`Temp directory (removed at the end): ${dir}`);
  try {
    say('Starting arlocal, a local Arweave gateway (its own chain, starting at block 0) ...');
    arlocal = await startArlocal();
    signal.throwIfAborted();
    say(`  arlocal is listening on ${arlocal.url}`);

    const dataDir = join(dir, 'data');
    say('Starting the upload service (src/main.ts, as `npm start` runs it) in a child process ...');
    say(`  data directory: ${dataDir}`);
    say(
      `  bundler every ${settings.bundlerIntervalMs} ms; a bundle is sent once it holds ${settings.bundleMaxItems} items ` +
        `or waited ${settings.bundleMaxWaitMs / 1000} s; permanent after ${settings.confirmations} confirmations`,
    );
    service = await startServiceProcess({
      ...Object.fromEntries(RESET.map((name) => [name, ''])),
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      GATEWAY_URL: arlocal.url,
      ADMIN_TOKEN: adminToken,
      BUNDLER_ENABLED: 'true',
      BUNDLER_INTERVAL_MS: String(settings.bundlerIntervalMs),
      BUNDLE_MAX_ITEMS: String(settings.bundleMaxItems),
      BUNDLE_MAX_WAIT_MS: String(settings.bundleMaxWaitMs),
      CONFIRMATIONS: String(settings.confirmations),
      // The demo mines a block a second while a bundle's chunks go up (arlocal mines a bundle only
      // once they are all in), far faster than Arweave's two minutes: on a slow machine that could
      // age the anchor past the default 50 blocks and drop a bundle arlocal is about to mine.
      // arlocal does not expire anchors, so this only keeps the demo from dropping its own bundle.
      DROP_AFTER_BLOCKS: '1000',
      // for the same reason, heights rise faster than the guard believes Arweave's can (heightGuard.ts)
      BLOCK_HEIGHT_MAX_JUMP: '1000000',
      BLOCK_HEIGHT_REFRESH_MS: '1000',
      // arlocal places each chunk after the last one it got, whatever its offset: one at a time
      BUNDLE_CHUNK_CONCURRENCY: '1',
      LOG_LEVEL: 'warn',
    });
    signal.throwIfAborted();
    say(`  the service is listening on ${service.url}`);

    const wallet = await serviceWallet(service.url);
    await arlocal.mint(wallet, SERVICE_WALLET_MINT);
    say(`  its wallet ${wallet} signs receipts and bundle transactions; minted 100 AR to it on arlocal to pay for them`);
    signal.throwIfAborted();
  } catch (error) {
    await close();
    throw error;
  }
  return { dir, arlocal, service, adminToken, settings, close };
}

/** The service wallet's address, as `GET /info` lists it (the wallet is generated on first start). */
async function serviceWallet(url: string): Promise<string> {
  const response = await fetch(`${url}/info`);
  const info = (await response.json()) as { addresses?: { arweave?: string } };
  const address = info.addresses?.arweave;
  if (response.status !== 200 || address === undefined) throw new Error(`GET /info answered HTTP ${response.status} without the service's address`);
  return address;
}

async function stopService(service: ServiceProcess): Promise<void> {
  const { process: child } = service;
  if (child.exitCode !== null || child.signalCode !== null) return;
  let timer: NodeJS.Timeout | undefined;
  const lingering = new Promise<'lingering'>((resolve) => (timer = setTimeout(() => resolve('lingering'), STOP_GRACE_MS)));
  const outcome = await Promise.race([service.stop(), lingering]);
  clearTimeout(timer);
  if (outcome === 'lingering') await service.kill();
}
