import type { Express } from 'express';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Config } from './config.js';
import { warningsTo, type Logger } from './log.js';
import type { EventStore } from './ports/eventStore.js';
import type { ReadStore } from './ports/readStore.js';
import type { BlobStore } from './ports/blobStore.js';
import { createPricingFromConfig } from './adapters/pricing/fromConfig.js';
import { createLookupBudgets } from './adapters/pricing/lookupBudget.js';
import { openEventStoreFromConfig } from './adapters/eventStoreFromConfig.js';
import { openBlobStoreFromConfig, openReadStoreFromConfig } from './adapters/storesFromConfig.js';
import { createBlockHeightSource } from './adapters/gateway/blockHeight.js';
import { createHeightGuard } from './adapters/gateway/heightGuard.js';
import { createGatewayProfile } from './adapters/gateway/gatewayProfile.js';
import { loadOrCreateWallet } from './wallet/loadOrCreateWallet.js';
import { countedSigner, createReceiptSigner } from './receipts/receiptSigner.js';
import { createProjectionRunner, type ProjectionRunner } from '../projections/runner.js';
import { createCheckpointWaiter } from '../projections/checkpointWaiter.js';
import { allProjections } from '../projections/index.js';
import type { AcceptDeps } from './app/acceptDataItem.js';
import { AccountRepository } from './app/accounts.js';
import { createSingleUploadHandler } from './app/singleUpload.js';
import { UploadRepository } from './app/uploads.js';
import type { MultipartDeps } from './app/multipart/deps.js';
import { createOwnerLookup } from './app/multipart/uploadOwner.js';
import { createFinalizer, type Finalizer } from './app/multipart/finalizer.js';
import { expireUploads } from './app/multipart/expirer.js';
import { anchoredWall, clocksWith, createStampAges, type Clocks } from './clock.js';
import { createUpload, requestFinalize } from './app/multipart/commands.js';
import { createBlocklist } from './app/blocklist.js';
import { createUploadTally } from './app/multipart/uploadTally.js';
import { createDiskSpace } from './adapters/fs/diskSpace.js';
import { receiveChunk } from './app/multipart/receiveChunk.js';
import { createPrefixVerifier } from './app/multipart/prefixVerifier.js';
import { itemRules } from './app/multipart/assembleUpload.js';
import { recoverNestedIndexes } from './app/nested/recoverNested.js';
import { createNestedIndexQueue } from './app/nested/indexQueue.js';
import { indexNestedItems } from './app/nested/recordNested.js';
import { every } from './app/periodic.js';
import { createBlobSweep } from './app/blobSweep.js';
import { createBundler, type Bundler } from './app/bundler/bundler.js';
import { BundleRepository } from './app/bundles.js';
import { LeaseFence } from './app/bundler/fence.js';
import { createArweaveGateway } from './adapters/gateway/arweaveGateway.js';
import { createWalletFunds } from './app/bundler/funds.js';
import { createReconciler } from './app/reconciler.js';
import { createTopUpChains } from './app/topUpChains.js';
import { createTopUps, TopUpRepository, type TopUps } from './app/topUps.js';
import { createApp, type AppOptions } from './http/app.js';
import { withFastStatus } from './http/fastStatus.js';
import { createQueries } from './queries/index.js';
import { listen } from './http/listen.js';
import { createReadiness } from './http/health.js';
import { closeGracefully, createInFlight, trackConnections } from './http/shutdown.js';
import { createMetrics } from './metrics/metrics.js';
import { countedBytes, countingFetch, instrumentGateway, timedSigner } from './metrics/instrument.js';
import { projectorLag } from '../projections/lag.js';
import { refuseReadModelsAhead } from '../projections/aheadOfEvents.js';
import { liveBundlesByState } from '../projections/liveBundles.js';
import { damagedItemsNow } from '../projections/uploadStats.js';
import { createUploadGuard } from './http/limits.js';
import { createTempSpace } from './http/tempSpace.js';
import { rolesOf } from './roles.js';
import { unavailableSigner } from './receipts/receiptSigner.js';
import { createBlobHasher, inlineHasher, type BlobHasher } from './crypto/blobHasher.js';
import { serviceVersion } from './version.js';

/**
 * Nested indexes written at once: each checks one signature at a time, so this bounds their share of
 * the libuv pool (RSA) and of the event loop (the JS schemes), whatever the number of bundle uploads.
 */
const NESTED_INDEX_CONCURRENCY = 2;
/** the recovery leaves a pending index this long to the process that accepted the item (it starts at once) */
const NESTED_INDEX_GRACE_MS = 10_000;

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
  projections: ProjectionRunner;
  reconciler: ReturnType<typeof createReconciler>;
  /** top-ups with the users' own tokens; `creditPending()` is the periodic pass */
  topUps: TopUps;
  multipart: MultipartDeps;
  /** the maintenance pass's expiry of uploads past their lifetime (tests run it): how many expired */
  expireUploads(): Promise<number>;
  finalizer: Finalizer;
  bundler: Bundler;
  /** the blob digests of uploads, off the request's thread */
  hasher: BlobHasher;
  stop(): Promise<void>;
}

/** Stores the caller opened itself (tests that make a disk fill or fail); the service closes them at stop. And its clocks, for tests. */
export interface ServiceStores {
  eventStore?: EventStore;
  readStore?: ReadStore;
  blobStore?: BlobStore;
  /** uploads' SHA-256 hasher (tests that stall or kill its workers); the service closes it at stop */
  hasher?: BlobHasher;
  /** the clocks in place of the system's (tests that step the wall clock or advance the monotonic one) */
  clocks?: Partial<Clocks>;
}

/**
 * Composition root: builds every adapter from the configuration (but the stores given in `stores`)
 * and runs all roles in one process (commands, queries, projector). Nothing connects before this is called.
 */
export async function startService(config: Config, log: Logger, stores: ServiceStores = {}): Promise<RunningService> {
  await mkdir(config.dataDir, { recursive: true });
  const roles = rolesOf(config.role);
  // this process's name in leases: a restarted process is a new holder (its lease waits out its old one)
  const instanceId = `${process.pid}-${randomUUID()}`;
  // the service's clocks: every timestamp of a command, lease and query below is `now` (the wall clock);
  // ages and deadlines that must not jump when it steps run on the monotonic one (src/clock.ts)
  const clocks = clocksWith(stores.clocks);
  const now = clocks.wall;
  // the block height's age and the guard's ceiling: wall times (they are saved), but no step moves them
  const heightClock = anchoredWall(clocks);
  // receipts being signed (the signer is made below): each is followed by its item's append, which
  // the embedded event store's commit delay waits for under load (EVENT_GROUP_WAIT_MS)
  let signing = () => 0;
  const eventStore = stores.eventStore ?? (await openEventStoreFromConfig(config, () => signing()));
  // READ_STORE / BLOB_STORE: the MongoDB driver is loaded only when one of them is MongoDB
  const readStore = stores.readStore ?? (await openReadStoreFromConfig(config, { log: warningsTo(log) }));
  const blobStore = stores.blobStore ?? (await openBlobStoreFromConfig(config, { log: warningsTo(log) }));
  let wallet: Awaited<ReturnType<typeof loadOrCreateWallet>>;
  try {
    // every role reads read models: none serves or appends on ones built from events this store lacks
    await refuseReadModelsAhead(eventStore, readStore);
    wallet = await loadOrCreateWallet({ walletFile: config.walletFile, dataDir: config.dataDir });
  } catch (error) {
    await Promise.allSettled([eventStore.close(), readStore.close(), blobStore.close()]);
    throw error;
  }
  const bundlerRuns = roles.bundler && config.bundler.enabled;
  // one registry per service instance (passed through deps); the scrape-time gauges read the stores
  const metrics = createMetrics({
    // counted up to READY_MAX_LAG + 1 events, as /ready counts (that value: over the bound)
    projectorLag: () => projectorLag(eventStore, readStore, allProjections, config.readyMaxLag + 1),
    liveBundles: () => liveBundlesByState(readStore),
    damagedItems: () => damagedItemsNow(readStore),
    // the bundler's view of the service wallet (built below); none where no bundler runs
    funds: () => (bundlerRuns ? funds.snapshot() : undefined),
    // the block height source is built below; its height's age, for alerts before uploads are refused
    blockHeightReadAt: () => blockHeight.health().readAt,
    blockHeightClock: () => heightClock(),
    onError: warningsTo(log),
  });
  // one judge of the gateway's heights for receipts and the bundler, seeded with the saved height
  const heights = createHeightGuard({ ...config.heightGuard, now: heightClock, log: (message) => log.warn(message) });
  // arlocal, told from its /info, gets the settings that work there (gatewayProfile.ts)
  const profile = createGatewayProfile({
    ...config.heightGuard,
    ...config.bundler,
    gatewayUrl: config.gatewayUrl,
    heights,
    warn: (message) => log.warn(message),
  });
  const blockHeight = createBlockHeightSource({
    gatewayUrl: config.gatewayUrl,
    stateFile: join(config.dataDir, 'block-height.json'),
    refreshMs: config.blockHeightRefreshMs,
    maxAgeMs: config.blockHeightMaxAgeMs,
    fetch: countingFetch('blockHeight', metrics),
    guard: heights,
    observeInfo: profile.observeInfo,
    now: heightClock,
    log: warningsTo(log),
  });
  await blockHeight.start();
  // receipts are signed where commands run; elsewhere no signing thread is started
  const signer = roles.commands
    ? countedSigner(
        timedSigner(createReceiptSigner({ jwk: wallet.jwk, workers: config.receiptSignerWorkers, log: (message: string) => log.warn(message) }), metrics),
      )
    : countedSigner(unavailableSigner);
  signing = signer.signing;
  // uploads' SHA-256 on worker threads (started by the first item that needs one), where commands run
  const hasher = stores.hasher ?? (roles.commands ? createBlobHasher({ log: (message: string) => log.warn(message) }) : inlineHasher);
  const runner = createProjectionRunner({
    eventStore,
    readStore,
    projections: allProjections,
    // while receipts are being signed (each followed by its item's append), a batch waits for their events;
    // not for other appends (a multi-part upload's chunks, each answered once projected: never held)
    batchWait: { ms: config.projectionBatchWaitMs, moreComing: () => signing() > 0 },
    // renewed every second: a runner that died is replaced within about five seconds
    holdLease: () => readStore.tryLease('projector', instanceId, 5_000, now()),
    leaseRenewMs: 1_000,
    log: (message, error) => log.error(message, error),
  });
  // In one process, a command answers once the read models show it; split, nobody waits here.
  const awaitProjection = roles.projector && roles.commands ? (position: bigint) => runner.waitFor(position, config.projectionWaitMs) : undefined;
  if (roles.projector) {
    await runner.start();
    // Answer queries from up-to-date read models: catch up with what was written before a restart
    // (bounded, so a large backlog delays start-up by at most startupCatchUpMs).
    const head = await eventStore.headPosition();
    if (head > 0n && !(await runner.waitFor(head, config.startupCatchUpMs))) {
      log.warn('read models still catching up at start-up', { head: head.toString() });
    }
  }

  const accounts = new AccountRepository(eventStore);
  const reconciler = createReconciler({
    eventStore,
    readStore,
    accounts,
    reservationTimeoutMs: config.reservationTimeoutMs,
    intervalMs: config.reconcileIntervalMs,
    holdLease: () => readStore.tryLease('reconciler', instanceId, 3 * config.reconcileIntervalMs, now()),
    now,
    log: (message, error) => log.error(message, error),
  });
  if (roles.commands) reconciler.start();
  const pricing = createPricingFromConfig({
    ...config.pricing,
    gatewayUrl: config.gatewayUrl,
    freeUploadLimitBytes: config.freeUploadLimitBytes,
    fetch: countingFetch('uploadPrice', metrics),
    log: warningsTo(log),
  });
  // the operator's block list, where uploads are taken: read from its stream, followed every second
  const blocklist = roles.commands ? createBlocklist({ eventStore, log: (message, error) => log.error(message, error) }) : undefined;
  await blocklist?.start();
  // items nested in accepted bundle items are indexed here, after the upload has answered
  const nestedIndex = createNestedIndexQueue({
    index: async (rootId, metadata, signal) => {
      const nestedDeps = { eventStore, blobStore, freeMaxItems: config.nestedFreeMaxItems, ...(blocklist ? { blocklist } : {}), now };
      const outcome = await indexNestedItems(nestedDeps, rootId, metadata, signal);
      if (outcome?.unindexed) log.warn('nested items not indexed', { rootId, items: outcome.items, unindexed: outcome.unindexed });
    },
    concurrency: NESTED_INDEX_CONCURRENCY,
    maxQueued: 10_000,
    log: (message, fields) => log.warn(message, fields),
  });
  const acceptDeps: AcceptDeps = {
    eventStore,
    blobStore,
    indexNested: (rootId, metadata) => nestedIndex.enqueue(rootId, metadata),
    ...(blocklist ? { blocklist } : {}),
    nestedFreeMaxItems: config.nestedFreeMaxItems,
    log: (message, fields) => log.warn(message, fields),
    accounts,
    pricing,
    blockHeight,
    signer,
    receiptSettings: {
      dataCaches: config.dataCaches,
      fastFinalityIndexes: config.fastFinalityIndexes,
      publicModulus: wallet.publicModulus,
      deadlineHeightOffset: config.deadlineHeightOffset,
    },
    reservationTimeoutMs: config.reservationTimeoutMs,
    ...(awaitProjection ? { awaitProjection } : {}),
    now,
  };

  // the free-disk floor of DATA_DIR, shared by every upload path of this process
  const disk = createDiskSpace({ dir: config.dataDir, floorBytes: config.abuse.minFreeDiskBytes, log: (message, error) => log.error(message, error) });
  await disk.start();
  // what every client holds in open multi-part uploads, where uploads are taken
  const tally = roles.commands
    ? createUploadTally({ eventStore, readStore, freeBytes: config.freeUploadLimitBytes, log: (message, error) => log.error(message, error) })
    : undefined;
  await tally?.start();

  const uploads = new UploadRepository(eventStore);
  const multipart: MultipartDeps = {
    uploads,
    blobStore,
    pricing,
    accounts,
    accept: acceptDeps,
    maxDataItemSize: config.maxDataItemSize,
    strictTags: config.strictTags,
    ...(blocklist ? { blocklist } : {}),
    limits: config.multipartLimits,
    ownerOf: createOwnerLookup(blobStore),
    disk,
    ...(tally ? { tally } : {}),
    observeVerify: (seconds) => metrics.verified('stored', seconds),
    // only a store that composes keeps the chunks as the item's bytes: another copies them at finalize, verifying as it goes
    ...(blobStore.compose && blobStore.open && config.verifyAheadUploads > 0
      ? {
          prefix: createPrefixVerifier({
            blobStore: { open: blobStore.open.bind(blobStore) },
            rules: itemRules({ maxDataItemSize: config.maxDataItemSize, strictTags: config.strictTags }),
            hasher,
            maxUploads: config.verifyAheadUploads,
          }),
          observePrefix: (seconds: number) => metrics.verified('prefix', seconds),
        }
      : {}),
    ...(awaitProjection ? { awaitProjection } : {}),
    hasher,
    now,
  };
  const finalizer = createFinalizer({
    deps: multipart,
    readStore,
    concurrency: config.finalizeConcurrency,
    log: (message, error) => log.error(message, error),
  });
  // ages of the uploads' stamps, seen by this process: kept from one maintenance pass to the next
  const uploadAges = createStampAges(clocks);
  const expire = () => expireUploads(multipart, readStore, config.uploadLifetimes, uploadAges);
  const maintenance = roles.commands
    ? every(
        60_000,
        async () => {
          await finalizer.resume();
          await expire();
          // queued, not awaited: a large index must not hold up the next pass
          await recoverNestedIndexes(
            { readStore, index: async (rootId) => nestedIndex.enqueue(rootId, { correlationId: 'nested-index-recovery' }) },
            { now: now(), graceMs: NESTED_INDEX_GRACE_MS },
          );
        },
        (message, error) => log.error(message, error),
      )
    : undefined;
  if (roles.commands) await finalizer.resume();
  // blobs no event owns (what a crash left), removed where uploads are taken, by one process at a time
  const sweepStopped = new AbortController();
  const orphanSweep = createBlobSweep({
    eventStore,
    blobStore,
    graceMs: config.blobSweep.graceMs,
    now,
    log,
    removed: (orphan) => metrics.orphanBlobRemoved(orphan.blob.key.split('/')[0]!),
  });
  const sweepPass =
    roles.commands && config.blobSweep.enabled
      ? every(
          config.blobSweep.intervalMs,
          async () => {
            if (await readStore.tryLease('blob-sweep', instanceId, 3 * config.blobSweep.intervalMs, now())) await orphanSweep.pass(sweepStopped.signal);
          },
          (message, error) => log.error(`orphan blob sweep: ${message}`, error),
        )
      : undefined;
  // at once: the grace period a pass waits out starts with the first pass that sees an orphan
  sweepPass?.now();

  const checkpoints = createCheckpointWaiter(readStore, allProjections);
  const bundlerGateway = instrumentGateway(
    createArweaveGateway({ gatewayUrl: config.gatewayUrl, timeoutMs: config.gatewayTimeoutMs, heights, observeInfo: profile.observeInfo }),
    metrics,
  );
  // the wallet's balance, read where the bundler runs: bundles it cannot pay for wait for funds
  const funds = createWalletFunds({
    gateway: bundlerGateway,
    address: wallet.address,
    refreshMs: config.bundler.walletBalanceRefreshMs,
    now,
    monotonic: clocks.monotonic,
    warn: (message, fields) => log.warn(message, fields),
    log: warningsTo(log),
  });
  const bundler = createBundler({
    eventStore,
    readStore,
    blobStore,
    gateway: bundlerGateway,
    funds,
    jwk: wallet.jwk,
    bundles: new BundleRepository(eventStore),
    settings: profile.bundlerSettings(config.bundler),
    // renewed each pass and every second during one: a bundler that died is replaced within seconds
    holdLease: () => readStore.tryLease('bundler', instanceId, Math.max(5_000, 2 * config.bundler.intervalMs), now()),
    fence: new LeaseFence(eventStore, instanceId, now),
    // planning must see its own plans in the queue read model: waited for here or across processes
    awaitProjection: awaitProjection ?? ((position) => checkpoints.waitFor(position, config.projectionWaitMs)),
    log: warningsTo(log),
    now,
    monotonic: clocks.monotonic,
  });
  if (bundlerRuns) {
    funds.start();
    bundler.start(config.bundler.intervalMs);
  }

  const addresses: Record<string, string> = { arweave: wallet.address };
  for (const [token, address] of Object.entries(config.addresses)) if (address) addresses[token] = address;
  // top-ups with the users' own tokens, claimed where commands run; pending ones checked under a lease
  const topUps = createTopUps({
    chains: createTopUpChains(config, wallet.address, countingFetch('topUp', metrics)),
    topUps: new TopUpRepository(eventStore),
    accounts,
    readStore,
    now,
    pendingMaxAgeMs: config.topUps.pendingMaxAgeMs,
    unknownTxCacheMs: config.topUps.unknownTxCacheMs,
    ...(awaitProjection ? { awaitProjection } : {}),
    log: (message, fields) => log.warn(message, fields),
  });
  const topUpPass =
    roles.commands && topUps.tokens().length > 0
      ? every(
          config.topUps.checkIntervalMs,
          async () => {
            if (await readStore.tryLease('top-ups', instanceId, 3 * config.topUps.checkIntervalMs, now())) await topUps.creditPending();
          },
          (message, error) => log.error(`top-ups: ${message}`, error),
        )
      : undefined;
  const info = { version: serviceVersion, gateway: config.gatewayUrl, addresses, freeUploadLimitBytes: config.freeUploadLimitBytes };

  // limits against abuse in front of the upload routes: uploads per client, temporary space, body rate
  const tempSpace = createTempSpace({
    budgetBytes: config.abuse.tempSpaceBytes,
    perClientBytes: config.abuse.tempSpacePerClientBytes,
    disk,
    ...(tally ? { tally } : {}),
  });
  const uploadGuard = roles.commands ? createUploadGuard({ ...config.abuse, maxDataItemSize: config.maxDataItemSize }, tempSpace) : undefined;

  const readiness = createReadiness({
    eventStore,
    readStore,
    blobStore,
    diskSpace: disk,
    // where receipts are signed: not ready without a block height fresh enough to sign one
    ...(roles.commands ? { blockHeight } : {}),
    // a commands-only replica answers from its own streams: read-model lag does not make it unready
    ...(roles.queries ? { projectorLag: () => projectorLag(eventStore, readStore, allProjections, config.readyMaxLag + 1) } : {}),
    maxLag: config.readyMaxLag,
    timeoutMs: config.readyCheckTimeoutMs,
    log: (message, fields) => log.warn(message, fields),
  });
  // command handlers at work: the stores close only once they have settled (see stop)
  const inFlight = createInFlight();
  const queryParts = roles.queries ? queryHandlers() : undefined;
  const app = createApp({
    observe: { log, metrics },
    ops: { readiness, metrics },
    limits: { maxDataItemSize: config.maxDataItemSize, topUpClaimsPerClientPerMinute: config.topUps.claimsPerClientPerMinute },
    readPace: config.abuse.bodyRate,
    ...(uploadGuard ? { uploadGuard: uploadGuard.router } : {}),
    ...(roles.commands ? { blockHeightFresh: () => blockHeight.current() !== undefined } : {}),
    log: (message, error, fields) => log.error(message, error, fields),
    ...(roles.commands ? commandHandlers() : {}),
    ...queryParts,
  });

  function commandHandlers(): Pick<AppOptions, 'commands' | 'admin' | 'multipartCommands'> {
    const singleUpload = createSingleUploadHandler({
      ...acceptDeps,
      maxDataItemSize: config.maxDataItemSize,
      strictTags: config.strictTags,
      observeVerify: (seconds) => metrics.verified('stream', seconds),
      hasher,
    });
    return {
      commands: {
        uploadDataItem: inFlight.track(async (input) => singleUpload({ ...input, body: countedBytes(input.body, 'single', metrics) })),
        ...(topUps.tokens().length > 0
          ? { topUps: { claim: inFlight.track((token: string, txId: string, meta: Parameters<typeof topUps.claim>[2]) => topUps.claim(token, txId, meta)) } }
          : {}),
      },
      ...(config.adminToken && blocklist
        ? { admin: { token: config.adminToken, accounts, eventStore, blocklist, ...(awaitProjection ? { awaitProjection } : {}), now } }
        : {}),
      multipartCommands: {
        create: inFlight.track((input) => createUpload(multipart, input)),
        receiveChunk: inFlight.track((input) => receiveChunk(multipart, { ...input, body: countedBytes(input.body, 'chunk', metrics) })),
        finalize: inFlight.track((input) => requestFinalize(multipart, finalizer, input)),
      },
    };
  }

  function queryHandlers(): Pick<AppOptions, 'queries' | 'multipartQueries' | 'dashboard'> {
    return createQueries({
      eventStore,
      readStore,
      blobStore,
      info: () => info,
      offsetsRetentionMs: config.offsetsRetentionMs,
      pricing,
      maxDataItemSize: config.maxDataItemSize,
      priceLookups: createLookupBudgets(config.priceLookups, { monotonic: clocks.monotonic }),
      blockHeight: blockHeight.health,
      ...(bundlerRuns ? { funds: funds.snapshot } : {}),
      now,
    });
  }

  // the status query, polled by clients, is served ahead of Express's routing (fastStatus.ts)
  const served = queryParts?.queries ? withFastStatus(app, { txStatus: queryParts.queries.txStatus, observe: { log, metrics } }) : app;
  const http = roles.http ? await listen(served, config.port, config.host, config.abuse) : undefined;
  const connections = http ? trackConnections(http.server) : undefined;
  const port = http?.port ?? 0;
  log.info('service started', { role: config.role, port, dataDir: config.dataDir, eventStore: config.eventStore, wallet: wallet.address });

  return {
    url: http?.url ?? '',
    port,
    server: http?.server,
    app: http ? app : undefined,
    eventStore,
    readStore,
    blobStore,
    walletAddress: wallet.address,
    accounts,
    projections: runner,
    reconciler,
    topUps,
    multipart,
    expireUploads: expire,
    finalizer,
    bundler,
    hasher,
    async stop() {
      // not ready from now on; no new connection; requests in flight get the grace period, then are cut
      readiness.stopping();
      if (http) {
        const { cut } = await closeGracefully(http.server, config.shutdownGraceMs, connections);
        if (cut) log.warn('shutdown grace period over: open connections cut', { graceMs: config.shutdownGraceMs });
      }
      // a cut upload whose bytes were all in is still accepted (durably): wait for it before closing the stores
      if (!(await inFlight.settled(10_000))) log.warn('command handlers still running at shutdown', { count: inFlight.count });
      uploadGuard?.stop();
      await tally?.stop();
      await blocklist?.stop();
      await bundler.stop();
      await funds.stop();
      await maintenance?.stop();
      sweepStopped.abort();
      await sweepPass?.stop();
      await topUpPass?.stop();
      // stops at the next entry; the recovery pass finishes the index after a restart
      await nestedIndex.stop();
      await finalizer.idle();
      await reconciler.stop();
      await runner.stop();
      // handed back at once (expired now), so a successor need not wait them out
      // a read store that is down must not keep the event store from being flushed and closed
      for (const lease of ['projector', 'bundler', 'reconciler', 'top-ups', 'blob-sweep']) {
        await readStore.tryLease(lease, instanceId, 0, now()).catch((error: unknown) => log.warn('lease not handed back', { lease, error: String(error) }));
      }
      blockHeight.stop();
      await signer.close();
      await hasher.close();
      await eventStore.close();
      await readStore.close();
      await blobStore.close();
    },
  };
}
