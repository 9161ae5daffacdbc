import { z } from 'zod';

/**
 * Configuration from environment variables, parsed once at start-up. A bad value stops start-up
 * with a message naming the variable. No configuration at all runs everything embedded under ./data.
 */

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const hostList = z.string().transform((s) =>
  s
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0),
);

const ConfigSchema = z.object({
  /** which parts this process runs: all of them, or one role of a split deployment */
  ROLE: z.enum(['all', 'commands', 'queries', 'projector', 'bundler']).default('all'),
  PORT: int(0, 65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  WALLET_FILE: z.string().optional(),
  GATEWAY_URL: z.url().default('https://arweave.net'),
  /** comma-separated host names that hold items (named in receipts' dataCaches, after PUBLIC_URL's host) */
  DATA_CACHES: hostList.optional(),
  /** this service's public URL (`https://upload.example.com`): it serves items' data, so receipts name its host */
  PUBLIC_URL: z.url().optional(),
  FAST_FINALITY_INDEXES: hostList.default([]),
  MAX_DATA_ITEM_SIZE: int(1, Number.MAX_SAFE_INTEGER).default(2_147_483_648),
  /** true: the ANS-104 text's tag limits (non-empty names and values, at most 128 tags); default: arbundles' */
  STRICT_TAGS: z.enum(['true', 'false']).default('false'),
  FREE_UPLOAD_LIMIT_BYTES: int(0, Number.MAX_SAFE_INTEGER).default(517_120),
  DEADLINE_HEIGHT_OFFSET: int(0, 1_000_000).default(200),
  BLOCK_HEIGHT_REFRESH_MS: int(1000, 86_400_000).default(60_000),
  /** a block height read from the gateway longer ago than this signs no receipt: uploads answer 503 */
  BLOCK_HEIGHT_MAX_AGE_MS: int(1000, 7 * 86_400_000).default(1_800_000),
  /** a gateway's height is refused past the last accepted one plus this plus one block per BLOCK_TIME_MIN_MS since */
  BLOCK_HEIGHT_MAX_JUMP: int(0, 1_000_000_000).default(100),
  BLOCK_TIME_MIN_MS: int(1, 86_400_000).default(30_000),
  /** how often the bundler reads the service wallet's balance (also read before a bundle is judged short of funds) */
  WALLET_BALANCE_REFRESH_MS: int(100, 86_400_000).default(60_000),
  RECEIPT_SIGNER_WORKERS: int(1, 256).optional(),
  /** in one process, how long a command waits for the projector to reach its event before answering */
  PROJECTION_WAIT_MS: int(0, 60_000).default(2000),
  /** while receipts are being signed, how long a projector batch may wait for their items' events (0: never) */
  PROJECTION_BATCH_WAIT_MS: int(0, 1000).default(25),
  /** while appends are on their way (receipts being signed), how long the embedded event store may hold a group for them (0: never) */
  EVENT_GROUP_WAIT_MS: int(0, 1000).default(25),
  STARTUP_CATCH_UP_MS: int(0, 600_000).default(10_000),
  PRICING_SOURCE: z.enum(['fixed', 'gateway']).default('fixed'),
  PRICE_WINC_PER_BYTE: z.string().regex(/^\d+$/, 'a non-negative integer').default('2000'),
  PRICE_MARGIN_PERCENT: z.coerce.number().min(0).max(1000).default(10),
  /** price look-ups the gateway is asked for per client (a size not cached): at once, and regained per minute */
  PRICE_LOOKUPS_BURST: int(0, 1_000_000).default(20),
  PRICE_LOOKUPS_PER_MINUTE: int(0, 1_000_000).default(60),
  /** bearer token of the /admin API; /admin is off without it */
  ADMIN_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  RESERVATION_TIMEOUT_MS: int(1000, 86_400_000).default(600_000),
  RECONCILE_INTERVAL_MS: int(100, 86_400_000).default(60_000),
  UPLOAD_LIFETIME_MS: int(60_000, 365 * 86_400_000).default(86_400_000),
  FINALIZE_CONCURRENCY: int(1, 64).default(8),
  VERIFY_AHEAD_UPLOADS: int(0, 1024).default(8),
  GATEWAY_TIMEOUT_MS: int(100, 600_000).default(30_000),
  BUNDLER_ENABLED: z.enum(['true', 'false']).default('true'),
  BUNDLER_INTERVAL_MS: int(100, 3_600_000).default(5_000),
  BUNDLE_MAX_ITEMS: int(1, 10_000).default(10_000),
  BUNDLE_MAX_BYTES: int(1024, 2 ** 33).default(2 ** 31),
  BUNDLE_MAX_WAIT_MS: int(0, 86_400_000).default(300_000),
  CONFIRMATIONS: int(1, 1000).default(18),
  DROP_AFTER_BLOCKS: int(1, 10_000).default(50),
  MAX_BUNDLE_ATTEMPTS: int(1, 1000).default(10),
  /**
   * chunks of a bundle posted to the gateway at once: one at a time, a far gateway's round trip
   * bounds the rate (256 KiB a round trip); 32 at once keep a gateway 100 to 200 ms away busy
   * (scripts/bench/far-gateway.ts)
   */
  BUNDLE_CHUNK_CONCURRENCY: int(1, 256).default(32),
  OFFSETS_RETENTION_DAYS: int(1, 36_500).default(365),
  /** bundle entries nested in a free item that are indexed (each costs a signature check); the rest are recorded as not indexed */
  NESTED_FREE_MAX_ITEMS: int(0, 100_000).default(1000),
  EVENT_STORE: z.enum(['sqlite', 'esdb']).default('sqlite'),
  EVENTSTORE_URL: z.string().optional(),
  /** where read models live: SQLite under DATA_DIR, or a MongoDB replica set (MONGO_URL) */
  READ_STORE: z.enum(['sqlite', 'mongo']).default('sqlite'),
  /** where blobs live: files under DATA_DIR, or GridFS in MongoDB (MONGO_URL), shared by every replica */
  BLOB_STORE: z.enum(['fs', 'gridfs']).default('fs'),
  /**
   * BLOB_STORE=fs: a blob of at most this many bytes is a row of `<DATA_DIR>/blobs/.small-blobs.db`
   * instead of a file of its own (src/adapters/fs/tieredBlobStore.ts); 0: every new blob is a file
   */
  SMALL_BLOB_MAX_BYTES: int(0, 2 ** 20).default(65_536),
  /** removes blobs no event owns (what a crash left: src/app/blobSweep.ts), where uploads are taken */
  BLOB_SWEEP: z.enum(['true', 'false']).default('true'),
  /** a blob is removed once changed this long ago and seen orphaned by a pass this long ago (monotonic) */
  BLOB_SWEEP_GRACE_MS: int(1000, 30 * 86_400_000).default(3_600_000),
  /** a pass at start-up, then one every this long (each walks the blob store) */
  BLOB_SWEEP_INTERVAL_MS: int(100, 86_400_000).default(3_600_000),
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'a mongodb:// or mongodb+srv:// connection string')
    .optional(),
  MONGO_DATABASE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'letters, digits, _ and -, at most 63')
    .default('upload_service'),
  ADDRESS_ETHEREUM: z.string().optional(),
  ADDRESS_SOLANA: z.string().optional(),
  ADDRESS_MATIC: z.string().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** /ready answers 503 while the slowest read model is more than this many events behind */
  READY_MAX_LAG: int(0, Number.MAX_SAFE_INTEGER).default(10_000),
  /** each /ready check not answered within this fails as `timeout` (a store that hangs is not ready) */
  READY_CHECK_TIMEOUT_MS: int(10, 600_000).default(2_000),
  /** on SIGTERM/SIGINT, requests in flight get this long to finish before their connections are cut */
  SHUTDOWN_GRACE_MS: int(0, 3_600_000).default(25_000),
  /** limits against abuse (src/http/listen.ts, src/http/limits.ts) */
  HEADERS_TIMEOUT_MS: int(10, 3_600_000).default(60_000),
  FIRST_REQUEST_TIMEOUT_MS: int(10, 3_600_000).default(10_000),
  BODY_IDLE_TIMEOUT_MS: int(10, 3_600_000).default(120_000),
  MIN_BODY_BYTES_PER_SECOND: int(0, 1_000_000_000).default(1024),
  BODY_RATE_GRACE_MS: int(0, 3_600_000).default(10_000),
  BODY_RATE_WINDOW_MS: int(10, 3_600_000).default(30_000),
  MAX_CONNECTIONS: int(0, 1_000_000).default(4096),
  MAX_CONNECTIONS_PER_CLIENT: int(0, 1_000_000).default(256),
  MAX_CONNECTIONS_PER_NETWORK: int(0, 1_000_000).default(1024),
  MAX_UPLOADS_PER_CLIENT: int(0, 1_000_000).default(64),
  TEMP_SPACE_BYTES: int(1, Number.MAX_SAFE_INTEGER).default(64 * 2 ** 30),
  /** default: an eighth of TEMP_SPACE_BYTES */
  TEMP_SPACE_PER_CLIENT_BYTES: int(1, Number.MAX_SAFE_INTEGER).optional(),
  MIN_FREE_DISK_BYTES: int(0, Number.MAX_SAFE_INTEGER).default(2 ** 30),
  /** multi-part uploads (src/app/multipart/deps.ts) */
  MAX_CHUNKS_PER_UPLOAD: int(1, 1_000_000).default(10_000),
  MAX_OPEN_UPLOADS_PER_CLIENT: int(0, 1_000_000).default(256),
  /** default: MAX_DATA_ITEM_SIZE (one item of a client that sends its header chunk last) */
  HEADERLESS_UPLOAD_BYTES_PER_CLIENT: int(0, Number.MAX_SAFE_INTEGER).optional(),
  HEADERLESS_UPLOAD_LIFETIME_MS: int(1_000, 365 * 86_400_000).default(3_600_000),
  /** top-ups with the users' own tokens (src/app/topUps.ts): winc per AR (10^12 winston: winston is winc), 0 turns AR top-ups off */
  TOPUP_WINC_PER_AR: z.string().regex(/^\d+$/, 'a non-negative integer').default('1000000000000'),
  TOPUP_ARWEAVE_CONFIRMATIONS: int(0, 1000).default(18),
  /** a JSON-RPC endpoint: ETH top-ups to ADDRESS_ETHEREUM, credited at TOPUP_WINC_PER_ETH */
  ETHEREUM_RPC_URL: z.url().optional(),
  TOPUP_WINC_PER_ETH: z.string().regex(/^\d+$/, 'a non-negative integer').optional(),
  TOPUP_ETHEREUM_CONFIRMATIONS: int(0, 1000).default(12),
  /** how often claimed top-ups short of their confirmations are looked at again */
  TOPUP_CHECK_INTERVAL_MS: int(100, 86_400_000).default(60_000),
  /** a pending claim whose transaction the chain no longer knows expires this long after the claim (it may then be claimed again) */
  TOPUP_PENDING_MAX_AGE_MS: int(1000, 365 * 86_400_000).default(86_400_000),
  /** top-up claims one client may make a minute (each may cost a request to the chain's provider); 0: no limit */
  TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE: int(0, 1_000_000).default(20),
  /** a transaction the chain did not know is answered as unknown from memory this long (0: never) */
  TOPUP_UNKNOWN_TX_CACHE_MS: int(0, 3_600_000).default(10_000),
});

export type Config = ReturnType<typeof parseConfig>;

/** every environment variable the service reads (the README's configuration table lists each) */
export const configVariables: readonly string[] = Object.keys(ConfigSchema.shape);

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function parseConfig(env: Record<string, string | undefined> = process.env) {
  const picked = Object.fromEntries(Object.keys(ConfigSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = ConfigSchema.safeParse(picked);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const c = parsed.data;
  if (c.EVENT_STORE === 'esdb' && !c.EVENTSTORE_URL) {
    throw new ConfigError('invalid configuration:\n  EVENTSTORE_URL: required when EVENT_STORE=esdb');
  }
  if ((c.READ_STORE === 'mongo' || c.BLOB_STORE === 'gridfs') && !c.MONGO_URL) {
    throw new ConfigError('invalid configuration:\n  MONGO_URL: required when READ_STORE=mongo or BLOB_STORE=gridfs');
  }
  if (c.ETHEREUM_RPC_URL && (!c.ADDRESS_ETHEREUM || !/^0x[0-9a-fA-F]{40}$/.test(c.ADDRESS_ETHEREUM) || c.TOPUP_WINC_PER_ETH === undefined)) {
    throw new ConfigError('invalid configuration:\n  ETHEREUM_RPC_URL: needs ADDRESS_ETHEREUM (0x and 40 hex digits) and TOPUP_WINC_PER_ETH');
  }
  const gatewayOrigin = new URL(c.GATEWAY_URL).origin;
  return {
    role: c.ROLE,
    port: c.PORT,
    host: c.HOST,
    dataDir: c.DATA_DIR,
    walletFile: c.WALLET_FILE,
    gatewayUrl: gatewayOrigin,
    // only hosts that hold the item from its receipt on: this service when it is public (it serves
    // GET /:id), and the configured caches; the gateway holds it only once bundled
    dataCaches: [...new Set([...(c.PUBLIC_URL ? [new URL(c.PUBLIC_URL).host] : []), ...(c.DATA_CACHES ?? [])])],
    fastFinalityIndexes: c.FAST_FINALITY_INDEXES,
    maxDataItemSize: c.MAX_DATA_ITEM_SIZE,
    strictTags: c.STRICT_TAGS === 'true',
    freeUploadLimitBytes: c.FREE_UPLOAD_LIMIT_BYTES,
    deadlineHeightOffset: c.DEADLINE_HEIGHT_OFFSET,
    blockHeightRefreshMs: c.BLOCK_HEIGHT_REFRESH_MS,
    blockHeightMaxAgeMs: c.BLOCK_HEIGHT_MAX_AGE_MS,
    heightGuard: { maxJumpBlocks: c.BLOCK_HEIGHT_MAX_JUMP, minBlockIntervalMs: c.BLOCK_TIME_MIN_MS },
    receiptSignerWorkers: c.RECEIPT_SIGNER_WORKERS,
    projectionWaitMs: c.PROJECTION_WAIT_MS,
    projectionBatchWaitMs: c.PROJECTION_BATCH_WAIT_MS,
    startupCatchUpMs: c.STARTUP_CATCH_UP_MS,
    pricing: { source: c.PRICING_SOURCE, wincPerByte: BigInt(c.PRICE_WINC_PER_BYTE), marginPercent: c.PRICE_MARGIN_PERCENT },
    priceLookups: { burst: c.PRICE_LOOKUPS_BURST, perMinute: c.PRICE_LOOKUPS_PER_MINUTE },
    adminToken: c.ADMIN_TOKEN,
    reservationTimeoutMs: c.RESERVATION_TIMEOUT_MS,
    reconcileIntervalMs: c.RECONCILE_INTERVAL_MS,
    uploadLifetimes: { lifetimeMs: c.UPLOAD_LIFETIME_MS, headerlessLifetimeMs: c.HEADERLESS_UPLOAD_LIFETIME_MS },
    multipartLimits: {
      maxChunks: c.MAX_CHUNKS_PER_UPLOAD,
      maxOpenUploadsPerClient: c.MAX_OPEN_UPLOADS_PER_CLIENT,
      freeUploadLimitBytes: c.FREE_UPLOAD_LIMIT_BYTES,
      headerlessBytesPerClient: c.HEADERLESS_UPLOAD_BYTES_PER_CLIENT ?? c.MAX_DATA_ITEM_SIZE,
    },
    finalizeConcurrency: c.FINALIZE_CONCURRENCY,
    verifyAheadUploads: c.VERIFY_AHEAD_UPLOADS,
    gatewayTimeoutMs: c.GATEWAY_TIMEOUT_MS,
    bundler: {
      enabled: c.BUNDLER_ENABLED === 'true',
      intervalMs: c.BUNDLER_INTERVAL_MS,
      limits: { maxItems: c.BUNDLE_MAX_ITEMS, maxBytes: c.BUNDLE_MAX_BYTES, maxWaitMs: c.BUNDLE_MAX_WAIT_MS },
      confirmations: c.CONFIRMATIONS,
      dropAfterBlocks: c.DROP_AFTER_BLOCKS,
      maxAttempts: c.MAX_BUNDLE_ATTEMPTS,
      chunkConcurrency: c.BUNDLE_CHUNK_CONCURRENCY,
      walletBalanceRefreshMs: c.WALLET_BALANCE_REFRESH_MS,
    },
    offsetsRetentionMs: c.OFFSETS_RETENTION_DAYS * 86_400_000,
    nestedFreeMaxItems: c.NESTED_FREE_MAX_ITEMS,
    eventStore: c.EVENT_STORE,
    eventGroupWaitMs: c.EVENT_GROUP_WAIT_MS,
    eventStoreUrl: c.EVENTSTORE_URL,
    readStore: c.READ_STORE,
    blobStore: c.BLOB_STORE,
    smallBlobMaxBytes: c.SMALL_BLOB_MAX_BYTES,
    blobSweep: { enabled: c.BLOB_SWEEP === 'true', graceMs: c.BLOB_SWEEP_GRACE_MS, intervalMs: c.BLOB_SWEEP_INTERVAL_MS },
    mongoUrl: c.MONGO_URL,
    mongoDatabase: c.MONGO_DATABASE,
    addresses: { ethereum: c.ADDRESS_ETHEREUM, solana: c.ADDRESS_SOLANA, matic: c.ADDRESS_MATIC },
    topUps: {
      arweave: { wincPerToken: BigInt(c.TOPUP_WINC_PER_AR), minConfirmations: c.TOPUP_ARWEAVE_CONFIRMATIONS },
      ethereum:
        c.ETHEREUM_RPC_URL && c.ADDRESS_ETHEREUM && c.TOPUP_WINC_PER_ETH !== undefined
          ? {
              rpcUrl: c.ETHEREUM_RPC_URL,
              address: c.ADDRESS_ETHEREUM,
              wincPerToken: BigInt(c.TOPUP_WINC_PER_ETH),
              minConfirmations: c.TOPUP_ETHEREUM_CONFIRMATIONS,
            }
          : undefined,
      checkIntervalMs: c.TOPUP_CHECK_INTERVAL_MS,
      pendingMaxAgeMs: c.TOPUP_PENDING_MAX_AGE_MS,
      claimsPerClientPerMinute: c.TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE,
      unknownTxCacheMs: c.TOPUP_UNKNOWN_TX_CACHE_MS,
    },
    logLevel: c.LOG_LEVEL,
    readyMaxLag: c.READY_MAX_LAG,
    readyCheckTimeoutMs: c.READY_CHECK_TIMEOUT_MS,
    shutdownGraceMs: c.SHUTDOWN_GRACE_MS,
    abuse: {
      headersTimeoutMs: c.HEADERS_TIMEOUT_MS,
      firstRequestTimeoutMs: c.FIRST_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: c.BODY_IDLE_TIMEOUT_MS,
      maxConnections: c.MAX_CONNECTIONS,
      maxConnectionsPerClient: c.MAX_CONNECTIONS_PER_CLIENT,
      maxConnectionsPerNetwork: c.MAX_CONNECTIONS_PER_NETWORK,
      maxUploadsPerClient: c.MAX_UPLOADS_PER_CLIENT,
      bodyRate: { minBytesPerSecond: c.MIN_BODY_BYTES_PER_SECOND, graceMs: c.BODY_RATE_GRACE_MS, windowMs: c.BODY_RATE_WINDOW_MS },
      tempSpaceBytes: c.TEMP_SPACE_BYTES,
      tempSpacePerClientBytes: c.TEMP_SPACE_PER_CLIENT_BYTES ?? Math.max(1, Math.floor(c.TEMP_SPACE_BYTES / 8)),
      minFreeDiskBytes: c.MIN_FREE_DISK_BYTES,
    },
  };
}
