import type { AcceptDeps } from '../app/acceptance/acceptDataItem.js';
import { createBlocklist } from '../app/blocklist.js';
import { UploadRepository } from '../app/uploads.js';
import type { MultipartDeps } from '../app/multipart/deps.js';
import { createOwnerLookup } from '../app/multipart/uploadOwner.js';
import { createFinalizer } from '../app/multipart/finalizer.js';
import { createUploadTally } from '../app/multipart/uploadTally.js';
import { createPrefixVerifier } from '../app/multipart/prefixVerifier.js';
import { itemRules } from '../app/multipart/assembleUpload.js';
import { createNestedIndexQueue } from '../app/nested/indexQueue.js';
import { indexNestedItems } from '../app/nested/recordNested.js';
import { checkTopUpChains, createTopUpChains } from '../app/accounts/topUpChains.js';
import { createTopUps, TopUpRepository } from '../app/accounts/topUps.js';
import { countedSigner, createReceiptSigner, unavailableSigner } from '../receipts/receiptSigner.js';
import { createBlobHasher, inlineHasher, type BlobHasher } from '../crypto/blobHasher.js';
import { countedBytes, countingFetch, timedSigner } from '../metrics/instrument.js';
import { createBridgeHealth } from '../app/bridge/health.js';
import { createAcceptedHeaders } from '../app/bridge/acceptedHeaders.js';
import { every } from '../app/periodic.js';
import { createSingleUploadHandler } from '../app/acceptance/singleUpload.js';
import { createUpload, requestFinalize } from '../app/multipart/commands.js';
import { receiveChunk } from '../app/multipart/receiveChunk.js';
import type { AppOptions } from '../http/app.js';
import type { InFlight } from '../http/shutdown.js';
import type { Lifecycle } from '../lifecycle.js';
import type { ServiceStores } from './stores.js';
import type { Wiring } from './context.js';
import type { Stores } from './stores.js';
import type { Shared } from './shared.js';
import { x402Routes, x402SideOf } from './x402.js';

/**
 * Nested indexes written at once: each checks one signature at a time, so this bounds their share of
 * the libuv pool (RSA) and of the event loop (the JS schemes), whatever the number of bundle uploads.
 */
const NESTED_INDEX_CONCURRENCY = 2;
/**
 * Accepted items' headers kept for the optical bridge (AcceptedHeaders): a second or two of uploads at
 * full rate, when the bridge posts within its interval (200 ms); at most about 16 MiB of the largest
 * headers (8 KiB each, twice as JS strings). Those it has not come to by then are read from their blobs.
 */
const ACCEPTED_HEADERS_MAX = 1024;

export type CommandSide = Awaited<ReturnType<typeof startCommandSide>>;

/**
 * What takes uploads, top-ups and the operator's commands (where commands run; built everywhere, as
 * the service's handles, but nothing started elsewhere): the receipt signer, the uploads' hasher,
 * the block list, the nested indexes, the open uploads' tally, the multi-part deps and finalizer.
 */
export async function startCommandSide(
  life: Lifecycle,
  w: Wiring,
  stores: Stores,
  shared: Shared,
  given: Pick<ServiceStores, 'hasher'>,
  /** in one process, a command answers once the read models show it; split, nobody waits here */
  awaitProjection: ((position: bigint) => Promise<boolean>) | undefined,
) {
  const { config, log, roles, now } = w;
  const { eventStore, readStore, blobStore, wallet } = stores;
  const { metrics, accounts, items, pricing } = shared;
  // receipts are signed where commands run; elsewhere no signing thread is started
  const signer = await life.open(
    'receipt signer',
    () =>
      roles.commands
        ? countedSigner(
            timedSigner(createReceiptSigner({ jwk: wallet.jwk, workers: config.receiptSignerWorkers, log: (message: string) => log.warn(message) }), metrics),
          )
        : countedSigner(unavailableSigner),
    (opened) => opened.close(),
  );
  w.signing.count = signer.signing;
  // uploads' SHA-256 on worker threads (started by the first item that needs one), where commands run
  const hasher = given.hasher ?? (roles.commands ? createBlobHasher({ log: (message: string) => log.warn(message) }) : inlineHasher);
  await life.start({ name: 'blob hasher', stop: () => hasher.close() });
  // the operator's block list, where uploads are taken: read from its stream, followed every second
  const blocklist = roles.commands ? createBlocklist({ eventStore, log: (message, error) => log.error(message, error) }) : undefined;
  if (blocklist) await life.start({ name: 'block list', start: () => blocklist.start(), stop: () => blocklist.stop() });
  const bridgeHealth = await startBridgeHealth(life, w);
  // the optical bridge runs where uploads are taken (background.ts): it takes their headers from here
  const acceptedHeaders = roles.commands && config.opticalBridge.gateways.length > 0 ? createAcceptedHeaders(ACCEPTED_HEADERS_MAX) : undefined;
  // items nested in accepted bundle items are indexed here, after the upload has answered
  const nestedIndex = createNestedIndexQueue({
    index: async (rootId, metadata, signal) => {
      const nestedDeps = { items, blobStore, freeMaxItems: config.nestedFreeMaxItems, ...(blocklist ? { blocklist } : {}), now };
      const outcome = await indexNestedItems(nestedDeps, rootId, metadata, signal);
      if (outcome?.unindexed) log.warn('nested items not indexed', { rootId, items: outcome.items, unindexed: outcome.unindexed });
    },
    concurrency: NESTED_INDEX_CONCURRENCY,
    maxQueued: 10_000,
    log: (message, fields) => log.warn(message, fields),
  });
  // stops at the next entry; the recovery pass finishes the index after a restart
  await life.start({ name: 'nested indexes', stop: () => nestedIndex.stop() });
  // what every client holds in open multi-part uploads, where uploads are taken
  const tally = roles.commands
    ? createUploadTally({ eventStore, readStore, freeBytes: config.freeUploadLimitBytes, log: (message, error) => log.error(message, error) })
    : undefined;
  if (tally) await life.start({ name: 'upload tally', start: () => tally.start(), stop: () => tally.stop() });
  const accept: AcceptDeps = {
    eventStore,
    items,
    blobStore,
    indexNested: (rootId, metadata) => nestedIndex.enqueue(rootId, metadata),
    ...(acceptedHeaders ? { headerHandoff: acceptedHeaders.accepted } : {}),
    ...(blocklist ? { blocklist } : {}),
    nestedFreeMaxItems: config.nestedFreeMaxItems,
    quarantineRules: config.quarantineRules,
    log: (message, fields) => log.warn(message, fields),
    accounts,
    pricing,
    blockHeight: shared.blockHeight,
    signer,
    receiptSettings: {
      dataCaches: config.dataCaches,
      // read at each receipt: the configured ones, then the bridge's gateways that are healthy now
      get fastFinalityIndexes() {
        return [...new Set([...config.fastFinalityIndexes, ...bridgeHealth.healthyHosts()])];
      },
      publicModulus: wallet.publicModulus,
      deadlineHeightOffset: config.deadlineHeightOffset,
    },
    reservationTimeoutMs: config.reservationTimeoutMs,
    ...(awaitProjection ? { awaitProjection } : {}),
    now,
  };
  const multipart = multipartDepsOf(w, stores, shared, { accept, hasher, awaitProjection, ...(blocklist ? { blocklist } : {}), ...(tally ? { tally } : {}) });
  const finalizer = createFinalizer({
    deps: multipart,
    readStore,
    concurrency: config.finalizeConcurrency,
    log: (message, error) => log.error(message, error),
  });
  await life.start({ name: 'finalizer', stop: () => finalizer.idle() });
  // top-ups with the users' own tokens, claimed where commands run; pending ones checked under a lease (background.ts)
  const chains = createTopUpChains(config, wallet.address, countingFetch('topUp', metrics));
  // an RPC endpoint of another chain than configured stops the start
  await life.start({ name: 'top-up chains', start: () => checkTopUpChains(chains, (message, fields) => log.warn(message, fields)) });
  const topUps = createTopUps({
    chains,
    topUps: new TopUpRepository(eventStore),
    accounts,
    readStore,
    now,
    pendingMaxAgeMs: config.topUps.pendingMaxAgeMs,
    unknownTxCacheMs: config.topUps.unknownTxCacheMs,
    ...(awaitProjection ? { awaitProjection } : {}),
    log: (message, fields) => log.warn(message, fields),
  });
  // x402 payments' networks and settlements, when configured: the routes and the recovery pass share them
  const x402 = await x402SideOf(config, eventStore);
  return { signer, hasher, blocklist, nestedIndex, tally, accept, multipart, finalizer, topUps, awaitProjection, bridgeHealth, acceptedHeaders, x402 };
}

/**
 * What receipts' `fastFinalityIndexes` know of the optical bridge's gateways, where commands run: the
 * bridge's own posts (background.ts, in the process holding its lease) and this process's probes of
 * the gateways nobody posted to lately, so every replica's receipts name only gateways that are up.
 */
async function startBridgeHealth(life: Lifecycle, { config, roles, clocks, log }: Wiring) {
  const { gateways, healthWindowMs, timeoutMs } = config.opticalBridge;
  const health = createBridgeHealth({ gateways, windowMs: healthWindowMs, timeoutMs, clocks });
  if (roles.commands && gateways.length > 0) {
    const probes = () => {
      const periodic = every(
        healthWindowMs / 4,
        () => health.probeIdle(),
        (message, error) => log.warn(`optical bridge probe: ${message}`, { error: String(error) }),
      );
      periodic.now();
      return periodic;
    };
    await life.open('optical bridge probes', probes, (periodic) => periodic.stop());
  }
  return health;
}

/** what the multi-part commands and the finalizer use: the accept deps of a single upload, and the upload's own */
function multipartDepsOf(
  { config, now }: Wiring,
  { eventStore, blobStore }: Stores,
  { metrics, accounts, pricing, disk }: Shared,
  { accept, hasher, blocklist, tally, awaitProjection }: Pick<MultipartDeps, 'accept' | 'blocklist' | 'tally' | 'awaitProjection'> & { hasher: BlobHasher },
): MultipartDeps {
  return {
    uploads: new UploadRepository(eventStore),
    blobStore,
    pricing,
    accounts,
    accept,
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
}

/** The command side's routes (where commands run): each handler tracked in flight, so the stores close only once it has settled. */
export function commandRoutes(
  { config, now }: Wiring,
  { eventStore, readStore }: Stores,
  { metrics, accounts, items }: Shared,
  { accept, hasher, topUps, blocklist, multipart, finalizer, awaitProjection, x402 }: CommandSide,
  inFlight: InFlight,
): Pick<AppOptions, 'commands' | 'admin' | 'multipartCommands' | 'x402'> {
  const singleUpload = createSingleUploadHandler({
    ...accept,
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
      ? { admin: { token: config.adminToken, accounts, eventStore, readStore, items, blocklist, ...(awaitProjection ? { awaitProjection } : {}), now } }
      : {}),
    ...x402Routes(config, x402, accept, hasher, inFlight),
    multipartCommands: {
      create: inFlight.track((input) => createUpload(multipart, input)),
      receiveChunk: inFlight.track((input) => receiveChunk(multipart, { ...input, body: countedBytes(input.body, 'chunk', metrics) })),
      finalize: inFlight.track((input) => requestFinalize(multipart, finalizer, input)),
    },
  };
}
