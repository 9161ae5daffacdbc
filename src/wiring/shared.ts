import { join } from 'node:path';
import { warningsTo } from '../log.js';
import { createPricingFromConfig } from '../adapters/pricing/fromConfig.js';
import { createBlockHeightSource } from '../adapters/gateway/blockHeight.js';
import { createHeightGuard } from '../adapters/gateway/heightGuard.js';
import { createArweaveGateway } from '../adapters/gateway/arweaveGateway.js';
import { createGatewayProfile } from '../adapters/gateway/gatewayProfile.js';
import { AccountRepository } from '../app/accounts/accounts.js';
import { DataItemRepository } from '../app/acceptance/dataItems.js';
import { createWalletFunds } from '../app/bundler/funds.js';
import { createMetrics } from '../metrics/metrics.js';
import { countingFetch, instrumentGateway } from '../metrics/instrument.js';
import { projectorLag } from '../../projections/lag.js';
import { liveBundlesByState } from '../../projections/liveBundles.js';
import { damagedItemsNow } from '../../projections/uploadStats.js';
import { heldItemsNow } from '../../projections/quarantineStats.js';
import { storageFigures } from '../queries/storage.js';
import { createDiskSpace, statfsFree } from '../adapters/fs/diskSpace.js';
import { projectionsOf } from '../../projections/index.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Wiring } from './context.js';
import type { Stores } from './stores.js';

export type Shared = Awaited<ReturnType<typeof startShared>>;

/**
 * What several roles use: the metrics, the gateway's block height (receipts, the bundler, the
 * queries), the gateway and the wallet's funds (the bundler, the queries), prices, accounts, items and the
 * free disk of DATA_DIR.
 */
export async function startShared(life: Lifecycle, w: Wiring, { eventStore, readStore, wallet }: Stores) {
  const { config, log } = w;
  const lag = () => projectorLag(eventStore, readStore, projectionsOf({ graphql: config.graphqlEnabled }), config.readyMaxLag + 1);
  // one registry per service instance (passed through deps); the scrape-time gauges read the stores
  const metrics = createMetrics({
    // counted up to READY_MAX_LAG + 1 events, as /ready counts (that value: over the bound)
    projectorLag: lag,
    liveBundles: () => liveBundlesByState(readStore),
    damagedItems: () => damagedItemsNow(readStore),
    heldItems: () => heldItemsNow(readStore),
    storage: () => storageFigures(readStore, () => statfsFree(config.dataDir), w.now()),
    // the bundler's view of the service wallet; none where no bundler runs
    funds: () => (w.bundlerRuns ? funds.snapshot() : undefined),
    // the block height's age, for alerts before uploads are refused
    blockHeightReadAt: () => blockHeight.health().readAt,
    blockHeightClock: () => w.heightClock(),
    onError: warningsTo(log),
  });
  // one judge of the gateway's heights for receipts and the bundler, seeded with the saved height
  const heights = createHeightGuard({ ...config.heightGuard, now: w.heightClock, log: (message) => log.warn(message) });
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
    now: w.heightClock,
    log: warningsTo(log),
  });
  await life.start({ name: 'block height', start: () => blockHeight.start(), stop: () => blockHeight.stop() });
  const gateway = instrumentGateway(
    createArweaveGateway({ gatewayUrl: config.gatewayUrl, timeoutMs: config.gatewayTimeoutMs, heights, observeInfo: profile.observeInfo }),
    metrics,
  );
  // the wallet's balance, read where the bundler runs: bundles it cannot pay for wait for funds
  const funds = createWalletFunds({
    gateway,
    address: wallet.address,
    refreshMs: config.bundler.walletBalanceRefreshMs,
    now: w.now,
    monotonic: w.clocks.monotonic,
    warn: (message, fields) => log.warn(message, fields),
    log: warningsTo(log),
  });
  const pricing = createPricingFromConfig({
    ...config.pricing,
    gatewayUrl: config.gatewayUrl,
    freeUploadLimitBytes: config.freeUploadLimitBytes,
    fetch: countingFetch('uploadPrice', metrics),
    log: warningsTo(log),
  });
  // the free-disk floor of DATA_DIR, shared by every upload path of this process
  const disk = createDiskSpace({
    dir: config.dataDir,
    floorBytes: config.abuse.minFreeDiskBytes,
    monotonic: w.clocks.monotonic,
    log: (message, error) => log.error(message, error),
  });
  await life.start({ name: 'disk space', start: () => disk.start() });
  // one repository each for accounts and items: one lock and one cache per stream in this process
  const accounts = new AccountRepository(eventStore);
  const items = new DataItemRepository(eventStore);
  return { metrics, projectorLag: lag, blockHeight, gateway, profile, funds, pricing, accounts, items, disk };
}
