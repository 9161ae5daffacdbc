import type { OpticalBridge } from './app/bridge/bridge.js';
import type { Express } from 'express';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { EventStore } from './ports/eventStore.js';
import type { ReadStore } from './ports/readStore.js';
import type { BlobStore } from './ports/blobStore.js';
import type { ProjectionRunner } from '../projections/runner.js';
import type { AccountRepository } from './app/accounts/accounts.js';
import type { DataItemRepository } from './app/acceptance/dataItems.js';
import type { MultipartDeps } from './app/multipart/deps.js';
import type { Finalizer } from './app/multipart/finalizer.js';
import type { Bundler } from './app/bundler/bundler.js';
import type { createReconciler } from './app/accounts/reconciler.js';
import type { createRefunder } from './app/accounts/refunder.js';
import type { createX402Recovery } from './app/x402/recovery.js';
import type { createRetention } from './app/retention/retention.js';
import type { TopUps } from './app/accounts/topUps.js';
import type { BlobHasher } from './crypto/blobHasher.js';
import { withLifecycle } from './lifecycle.js';
import { createWiring } from './wiring/context.js';
import { openStores, type ServiceStores } from './wiring/stores.js';
import { startShared } from './wiring/shared.js';
import { awaitProjectionOf, startBackgroundWork, startProjector } from './wiring/background.js';
import { startCommandSide } from './wiring/commands.js';
import { startHttp } from './wiring/http.js';

export interface RunningService {
  url: string;
  /** 0 and '' (url) for the roles that serve no HTTP (projector, bundler) */
  port: number;
  server: Server | undefined;
  /** the Express app behind the server (which serves the status query ahead of it: fastStatus.ts) */
  app: Express | undefined;
  eventStore: EventStore;
  readStore: ReadStore;
  blobStore: BlobStore;
  walletAddress: string;
  accounts: AccountRepository;
  /** the process's one data-item repository: items read and commanded */
  items: DataItemRepository;
  projections: ProjectionRunner;
  reconciler: ReturnType<typeof createReconciler>;
  /** gives FAILED items' charges back (`runOnce()`: one pass, as the periodic one) */
  refunder: ReturnType<typeof createRefunder>;
  /** ends the x402 settlements a crash left started, from the chain (`runOnce()`), when x402 is configured */
  x402Recovery?: ReturnType<typeof createX402Recovery>;
  /** the retention of permanent items' bytes, where uploads are taken and RETAIN_PERMANENT_BYTES_MS is not -1 */
  retention?: ReturnType<typeof createRetention>;
  /** top-ups with the users' own tokens; `creditPending()` is the periodic pass */
  topUps: TopUps;
  multipart: MultipartDeps;
  /** the maintenance pass's expiry of uploads past their lifetime (tests run it): how many expired */
  expireUploads(): Promise<number>;
  finalizer: Finalizer;
  bundler: Bundler;
  /** the optical bridge, when gateways are configured and this process takes uploads */
  opticalBridge?: OpticalBridge;
  /** the blob digests of uploads, off the request's thread */
  hasher: BlobHasher;
  stop(): Promise<void>;
}

export type { ServiceStores } from './wiring/stores.js';

/**
 * Composition root: builds every part from the configuration (but the stores `given`) and
 * starts the roles of `config.role` (all of them by default: commands, queries, projector, bundler),
 * each part once those it uses run (src/wiring/). Nothing connects before this is called; a part that
 * fails to start stops the ones started before it, in reverse, and its error is rethrown.
 */
export async function startService(config: Config, log: Logger, given: ServiceStores = {}): Promise<RunningService> {
  await mkdir(config.dataDir, { recursive: true });
  const w = createWiring(config, log, given.clocks);
  const stopFailed = (part: string, error: unknown) => log.warn('part of the service failed to stop', { part, error: String(error) });
  return withLifecycle(stopFailed, async (life) => {
    // every role: the stores, the wallet and the leases, then what several roles use
    const stores = await openStores(life, w, given);
    const shared = await startShared(life, w, stores);
    // the projector (catching up before anything answers), then the command side that waits on it
    const projections = await startProjector(life, w, stores);
    const commands = await startCommandSide(life, w, stores, shared, given, awaitProjectionOf(w, projections));
    const background = await startBackgroundWork(life, w, stores, shared, commands);
    // last, the HTTP front of the command and query sides: first to stop
    const { http, app } = await startHttp(life, w, stores, shared, commands);
    const port = http?.port ?? 0;
    log.info('service started', { role: config.role, port, dataDir: config.dataDir, eventStore: config.eventStore, wallet: stores.wallet.address });
    return {
      url: http?.url ?? '',
      port,
      server: http?.server,
      app,
      eventStore: stores.eventStore,
      readStore: stores.readStore,
      blobStore: stores.blobStore,
      walletAddress: stores.wallet.address,
      accounts: shared.accounts,
      items: shared.items,
      projections,
      reconciler: background.reconciler,
      refunder: background.refunder,
      ...(background.x402Recovery ? { x402Recovery: background.x402Recovery } : {}),
      topUps: commands.topUps,
      multipart: commands.multipart,
      expireUploads: background.expire,
      finalizer: commands.finalizer,
      bundler: background.bundler,
      ...(background.opticalBridge ? { opticalBridge: background.opticalBridge } : {}),
      ...(background.retention ? { retention: background.retention } : {}),
      hasher: commands.hasher,
      stop: () => life.stop(),
    };
  });
}
