import type { AppOptions } from '../http/app.js';
import { createQueries } from '../queries/index.js';
import { createLiveFeed } from '../queries/liveFeed.js';
import { createTransactionData } from '../adapters/gateway/transactionData.js';
import { countingFetch } from '../metrics/instrument.js';
import { statfsFree } from '../adapters/fs/diskSpace.js';
import { createStatusStreams } from '../queries/statusStreams.js';
import { createLookupBudgets } from '../adapters/pricing/lookupBudget.js';
import { serviceVersion } from '../version.js';
import { topUpAddressesOf, topUpRatesOf } from '../app/accounts/topUpChains.js';
import type { Wiring } from './context.js';
import type { Stores } from './stores.js';
import type { Shared } from './shared.js';

/** The query side's routes (where queries run): answered from the read models, the block height and the wallet's funds. */
export function queryRoutes(
  w: Wiring,
  { eventStore, readStore, blobStore, wallet }: Stores,
  shared: Shared,
): Pick<AppOptions, 'queries' | 'multipartQueries' | 'dashboard'> & { liveStatus: NonNullable<AppOptions['liveStatus']> } {
  const { config } = w;
  const addresses: Record<string, string> = { arweave: wallet.address };
  for (const [token, address] of Object.entries(config.addresses)) if (address) addresses[token] = address;
  for (const [token, address] of topUpAddressesOf(config)) addresses[token] ??= address;
  const info = { version: serviceVersion, gateway: config.gatewayUrl, addresses, freeUploadLimitBytes: config.freeUploadLimitBytes };
  // the status streams' one subscription in this process, whatever its role (the queries role has no projector)
  const feed = createLiveFeed({ eventStore, log: (message, error) => w.log.error(message, error) });
  const streams = createStatusStreams({ feed, readStore, catchUpMs: 10_000, maxPending: 10_000 });
  const liveStatus = { streams, limits: config.liveStatus };
  const queries = createQueries({
    eventStore,
    readStore,
    blobStore,
    info: () => info,
    offsetsRetentionMs: config.offsetsRetentionMs,
    pricing: shared.pricing,
    maxDataItemSize: config.maxDataItemSize,
    priceLookups: createLookupBudgets(config.priceLookups, { monotonic: w.clocks.monotonic }),
    blockHeight: shared.blockHeight.health,
    ...(w.bundlerRuns ? { funds: shared.funds.snapshot } : {}),
    now: w.now,
    tokenRates: topUpRatesOf(config),
    walletJwk: wallet.jwk,
    freeDiskBytes: () => statfsFree(config.dataDir),
    retiredBytes: {
      source: createTransactionData({ gatewayUrl: config.gatewayUrl, idleMs: config.gatewayTimeoutMs, fetch: countingFetch('retiredBytes', shared.metrics) }),
      maxReads: config.retention.maxGatewayReads,
    },
    graphql: config.graphqlEnabled,
  });
  return { ...queries, liveStatus };
}
