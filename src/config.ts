import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { canonicalTopUpToken, namesOfTopUpToken } from './ports/transfers.js';

/**
 * Configuration from environment variables, parsed once at start-up. A bad value stops start-up
 * with a message naming the variable. No configuration at all runs everything embedded under ./data.
 */

const hex = (digits: number) =>
  z
    .string()
    .regex(new RegExp(`^0x[0-9a-fA-F]{${digits}}$`))
    .transform((v) => v as `0x${string}`);
const X402Networks = z
  .array(
    z.object({
      network: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
      chainId: z.number().int().positive(),
      rpcUrl: z.url(),
      usdc: hex(40),
      payTo: hex(40),
      eip712Name: z.string().default('USD Coin'),
      eip712Version: z.string().default('2'),
      facilitatorUrl: z.url().optional(),
      keyFile: z.string().min(1).optional(),
    }),
  )
  .min(1);
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const TopUpEvmChains = z
  .array(
    z.strictObject({
      token: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/),
      chainId: z.number().int().positive(),
      rpcUrl: z.url(),
      address: hex(40),
      wincPerToken: z.string().regex(/^[1-9]\d*$/, 'a positive integer'),
      confirmations: z.number().int().min(0).max(1000).default(12),
    }),
  )
  .min(1);
const hostList = z.string().transform((s) =>
  s
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0),
);

/** `url` or `url=key` (the first `=` splits: a key may hold more), comma-separated */
const gatewayList = z.string().transform((s, ctx) =>
  s
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .flatMap((entry) => {
      const at = entry.indexOf('=');
      const url = at < 0 ? entry : entry.slice(0, at);
      const key = at < 0 ? undefined : entry.slice(at + 1);
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
        ctx.addIssue({ code: 'custom', message: `not an http(s) URL: ${url}` });
        return [];
      }
      return [{ url, ...(key ? { key } : {}) }];
    }),
);

/** the one source of every variable's default, range and meaning (`.describe`): docs/configuration.md is generated from it */
/**
 * The operator's quarantine rules (QUARANTINE_RULES; applied by src/domain/quarantine/rules.ts): what
 * an item must look like, at its acceptance, to be held (accepted, receipted and charged as any item,
 * then held out of bundling and reads until released) or refused (403 `Forbidden` before anything is
 * reserved or stored). The shapes are the ones the reference service meets (issue 38, after
 * ardriveapp/turbo-upload-service `src/routes/dataItemPost.ts`: spam items of exactly 100,372 bytes
 * with no tags), known items by digest, and tags by name and value.
 */
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'hex sha256, lower case');
/** as `sha384sum` prints it; either case, kept in lower case (the verifier's) */
const Sha384 = z
  .string()
  .regex(/^[0-9a-fA-F]{96}$/, 'hex sha384')
  .transform((hex) => hex.toLowerCase());

/** a regular expression matched against the whole string (anchored): the operator's, checked when the configuration is read */
const Pattern = z.string().transform((source, ctx) => {
  try {
    return new RegExp(`^(?:${source})$`, 'u');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `not a regular expression: ${error instanceof Error ? error.message : String(error)}` });
    return z.NEVER;
  }
});

const TagPattern = z.strictObject({ name: Pattern.optional(), value: Pattern.optional() });

export const QuarantineRule = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits and . _ - (at most 64)'),
  /** hold (the default): accepted, receipted, charged, held; refuse: 403 before anything is reserved or stored */
  action: z.enum(['hold', 'refuse']).default('hold'),
  /** kept with the hold, as an operator's reason is */
  reason: z.string().min(1).max(500),
  match: z
    .strictObject({
      /** the signed item's size in bytes, exactly; or at least / at most */
      size: z.number().int().nonnegative().optional(),
      minSize: z.number().int().nonnegative().optional(),
      maxSize: z.number().int().nonnegative().optional(),
      /** true: the item has no tags at all; false: it has some */
      untagged: z.boolean().optional(),
      /** each pattern must match some tag (name and value, each a whole-string regular expression) */
      tags: z.array(TagPattern).min(1).optional(),
      /** the signed item's sha256 (hex; what `DataItemAccepted.sha256` records) is one of these */
      sha256: z.array(Sha256).min(1).optional(),
      /** the payload's SHA-384 (hex, `sha384sum` of the payload alone) is one of these: one payload under any key */
      payloadSha384: z.array(Sha384).min(1).optional(),
      /** the owner's native address (as receipts' payers are keyed) is one of these */
      owners: z.array(z.string().min(1)).min(1).optional(),
    })
    .refine((m) => Object.values(m).some((v) => v !== undefined), 'a rule must name at least one condition'),
});
export type QuarantineRule = z.output<typeof QuarantineRule>;
const QuarantineRules = z.array(QuarantineRule).refine((rules) => new Set(rules.map((r) => r.name)).size === rules.length, 'rule names must differ');

export const ConfigSchema = z.object({
  ROLE: z
    .enum(['all', 'commands', 'queries', 'projector', 'bundler'])
    .default('all')
    .describe('`all` (one process), or one part of a split deployment: `commands`, `queries`, `projector`, `bundler`'),
  PORT: int(0, 65535).default(3000).describe('HTTP port (0: any free port)'),
  HOST: z.string().default('0.0.0.0').describe('interface to listen on'),
  DATA_DIR: z.string().default('./data').describe('where the embedded stores, blobs, wallet and cached block height live'),
  WALLET_FILE: z
    .string()
    .optional()
    .describe("the service's Arweave JWK, which signs receipts and bundles; unset: `DATA_DIR/wallet.json`, generated on the first start (mode 0600)"),
  GATEWAY_URL: z.url().default('https://arweave.net').describe('the Arweave gateway (block height, prices, bundle posting)'),
  DATA_CACHES: hostList
    .optional()
    .describe(
      "comma-separated host names that hold items, put in receipts' `dataCaches` after `PUBLIC_URL`'s host (the gateway is not named by default: it holds an item only once bundled)",
    ),
  PUBLIC_URL: z
    .url()
    .optional()
    .describe("this service's public URL (`https://upload.example.com`): it serves items' data (`GET /:id`), so receipts name its host first in `dataCaches`"),
  FAST_FINALITY_INDEXES: hostList
    .default([])
    .describe("comma-separated host names always put in receipts' `fastFinalityIndexes` (the optical bridge's gateways are added only while healthy)"),
  /** the optical bridge (src/app/bridge) */
  OPTICAL_BRIDGE_URLS: gatewayList
    .optional()
    .describe(
      "ar.io gateways the optical bridge posts each accepted item's signed header to (nested items' too), comma-separated; each `https://gateway.example` (`/ar-io/admin/queue-data-item` is added unless the URL ends with it) or `https://gateway.example=KEY` with its own admin key. Unset: no bridge. Receipts name a gateway's host in `fastFinalityIndexes` only while its posts (or the probes of an idle one) succeed",
    ),
  OPTICAL_BRIDGE_ADMIN_KEY: z.string().min(1).optional().describe("the gateways' admin key (`Authorization: Bearer`), for those listed without their own"),
  OPTICAL_BRIDGE_BATCH_SIZE: int(1, 1000)
    .default(100)
    .describe("headers per post (a post also stays under 100 KiB, the JSON body limit of ar-io-node's route)"),
  OPTICAL_BRIDGE_INTERVAL_MS: int(1, 60_000).default(200).describe('a batch not full is posted once its oldest header waited this long'),
  OPTICAL_BRIDGE_TIMEOUT_MS: int(100, 600_000)
    .default(5_000)
    .describe('time limit of each post to a gateway (a slow gateway never holds an upload: posts are made after the receipt)'),
  OPTICAL_BRIDGE_RETRY_MS: int(1, 3_600_000)
    .default(1_000)
    .describe('wait before posting again to a gateway that failed (no answer, 401, 429, 5xx), doubled per failure in a row up to 64 times this'),
  OPTICAL_BRIDGE_MAX_ATTEMPTS: int(1, 1000)
    .default(8)
    .describe(
      'posts of one header to one gateway before it is given up on (recorded `DataItemBridged` with `ok: false`); an answer of 400 or 413 is not tried again',
    ),
  OPTICAL_BRIDGE_QUEUE_MAX: int(1, 1_000_000)
    .default(10_000)
    .describe(
      'headers the bridge holds in memory; past it, it reads no further events until some are done (they wait in the event store, never in front of an upload)',
    ),
  OPTICAL_BRIDGE_HEALTH_WINDOW_MS: int(1000, 3_600_000)
    .default(30_000)
    .describe(
      'a gateway counts as healthy while its last post or probe, at most this long ago (monotonic clock), succeeded; an idle one is probed twice per window',
    ),
  MAX_DATA_ITEM_SIZE: int(1, Number.MAX_SAFE_INTEGER).default(2_147_483_648).describe('largest accepted item in bytes'),
  STRICT_TAGS: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      "`true`: the ANS-104 text's tag limits (names and values non-empty, at most 128 tags, names up to 1024 and values up to 3072 bytes) answer `Invalid Data Item`. By default the tags are checked as arbundles 0.11.2 and the reference service check them: any names and values (empty too), any number of tags, within 4096 tag bytes in the canonical Avro shape. The audit and the nested index always read tags by arbundles' rules, which every item accepted under either setting meets",
    ),
  QUARANTINE_RULES: z
    .string()
    .transform((s, ctx) => {
      try {
        const text = s.trimStart().startsWith('[') ? s : readFileSync(s, 'utf8');
        return QuarantineRules.parse(JSON.parse(text));
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `a JSON array of rules, or a file holding one: ${error instanceof Error ? error.message : String(error)}` });
        return z.NEVER;
      }
    })
    .optional()
    .describe(
      'the operator\'s quarantine rules, checked on every item at its acceptance (single, multi-part, x402): a JSON array, or the path of a file holding one. Each rule: `name`, `reason`, `action` (`hold`, the default: accepted, receipted and charged, then held out of bundling and reads (451) until released; `refuse`: 403 `Forbidden` before anything is reserved or stored) and `match`, every condition of which must hold: `size` (the signed item\'s bytes, exactly), `minSize`, `maxSize`, `untagged` (true: no tags), `tags` (`[{ name, value }]`, whole-string regular expressions, each pattern matching some tag), `sha256` (the signed item\'s digests), `payloadSha384` (the payload\'s SHA-384 digests, hex as `sha384sum` prints them: the same payload signed by any key), `owners` (native addresses). The first rule that matches decides. E.g. the reference\'s spam shape: `[{"name":"untagged-100372","match":{"size":100372,"untagged":true},"reason":"known spam shape"}]`',
    ),
  FREE_UPLOAD_LIMIT_BYTES: int(0, Number.MAX_SAFE_INTEGER).default(517_120).describe('reported in `/info`; items up to this size are free'),
  DEADLINE_HEIGHT_OFFSET: int(0, 1_000_000).default(200).describe('receipt `deadlineHeight` = current block height + this'),
  BLOCK_HEIGHT_REFRESH_MS: int(1000, 86_400_000).default(60_000).describe('how often the block height is refreshed in the background'),
  BLOCK_HEIGHT_MAX_AGE_MS: int(1000, 7 * 86_400_000)
    .default(1_800_000)
    .describe(
      'receipts are signed only with a block height the gateway answered at most this long ago (in memory, or saved in `DATA_DIR/block-height.json` with when it was read); without one, uploads (`POST /tx`, multi-part creation and finalize) answer 503 `Service unavailable` before their body is read and `/ready` fails `blockHeight`',
    ),
  BLOCK_HEIGHT_MAX_JUMP: int(0, 1_000_000_000)
    .default(100)
    .describe(
      "a height from the gateway is believed only up to the last accepted one plus this plus one block per `BLOCK_TIME_MIN_MS` since (before any is known: since Arweave's genesis); higher, or more than 50 blocks lower, it is refused, logged once, and the last accepted height stays in use (for receipts and the bundler's drop decisions) and saved. On arlocal, which mines many blocks at once, at least `1000000` (told and logged as for `BUNDLE_CHUNK_CONCURRENCY`). After moving `GATEWAY_URL` to another network, delete `DATA_DIR/block-height.json`",
    ),
  BLOCK_TIME_MIN_MS: int(1, 86_400_000).default(30_000).describe('the shortest average time between blocks believed (Arweave aims at 120 s)'),
  WALLET_BALANCE_REFRESH_MS: int(100, 86_400_000)
    .default(60_000)
    .describe(
      "how often the bundler reads the service wallet's balance from the gateway (`GET /wallet/<address>/balance`); it also reads it before judging a bundle short of funds",
    ),
  RECEIPT_SIGNER_WORKERS: int(1, 256).optional().describe('worker threads signing receipts; unset: one per core'),
  PROJECTION_WAIT_MS: int(0, 60_000).default(2000).describe('a command waits at most this long for the read models to show its events'),
  PROJECTION_BATCH_WAIT_MS: int(0, 1000)
    .default(25)
    .describe(
      "while uploads' receipts are being signed, the projector lets a batch wait for their events, at most this long from its first, and applies them together (other appends, such as multi-part chunks, never make it wait); `0`: never waits",
    ),
  EVENT_GROUP_WAIT_MS: int(0, 1000)
    .default(25)
    .describe(
      "commit delay of the embedded event store: while other uploads' receipts are being signed (each followed by its item's append), a group of appends is held for them, at most this long from its oldest, and written in one transaction with them; an append nobody follows is written at once. `0`: never held",
    ),
  STARTUP_CATCH_UP_MS: int(0, 600_000).default(10_000).describe('at start, wait at most this long for the read models to catch up'),
  PRICING_SOURCE: z
    .enum(['fixed', 'gateway'])
    .default('fixed')
    .describe('`fixed` (offline) or `gateway` (`GET /price/N` of the gateway, cached per 256 KiB chunk count)'),
  PRICE_WINC_PER_BYTE: z
    .string()
    .regex(/^\d+$/, 'a non-negative integer')
    .default('2000')
    .describe('the fixed rate (about 2 AR per GiB); not zero, so an unfunded payer above the free limit gets 402'),
  PRICE_MARGIN_PERCENT: z.coerce.number().min(0).max(1000).default(10).describe("added to the gateway's price"),
  PRICE_LOOKUPS_BURST: int(0, 1_000_000)
    .default(20)
    .describe(
      'price quotes (`GET /price/...`) one client (as for `MAX_UPLOADS_PER_CLIENT`) may have asked of the gateway at once, for sizes not cached; past it 429 `Too Many Requests` with `Retry-After`',
    ),
  PRICE_LOOKUPS_PER_MINUTE: int(0, 1_000_000).default(60).describe('such look-ups a client regains per minute'),
  ADMIN_TOKEN: z
    .string()
    .min(16, 'at least 16 characters')
    .optional()
    .describe('bearer token of the `/admin` API (at least 16 characters); `/admin` is off without it'),
  RESERVATION_TIMEOUT_MS: int(1000, 86_400_000)
    .default(600_000)
    .describe(
      'the reconciler settles or releases reservations older than this; an upload must be accepted within half of it after reserving, else it answers 503 `Service unavailable` (reservation released) rather than race that release',
    ),
  RECONCILE_INTERVAL_MS: int(100, 86_400_000)
    .default(60_000)
    .describe("how often the reconciler runs (and the refunder of FAILED items' charges, and the x402 recovery of settlements a crash left started)"),
  UPLOAD_LIFETIME_MS: int(60_000, 365 * 86_400_000)
    .default(86_400_000)
    .describe('a multi-part upload not finalized within this expires and its chunks are deleted'),
  FINALIZE_CONCURRENCY: int(1, 64)
    .default(8)
    .describe(
      "multi-part finalizations run at once (each streams its item once: memory stays bounded; most of a small item's finalization is waiting on the store and the signer, so a few run side by side)",
    ),
  VERIFY_AHEAD_UPLOADS: int(0, 1024)
    .default(8)
    .describe(
      'multi-part uploads whose chunks are verified as they come in (each chunk read back once every byte before it has come, so a finalize reads only what is left: nothing for a client sending in order); past it the least recently fed upload is verified at its finalize instead, as with `0`. Each holds a verifier and at most 4 MiB of hashing buffers. Only for the file store (the layered store copies at finalize)',
    ),
  GATEWAY_TIMEOUT_MS: int(100, 600_000).default(30_000).describe('time limit of each bundler call to the gateway'),
  BUNDLER_ENABLED: z.enum(['true', 'false']).default('true').describe('run the bundler in this process'),
  GRAPHQL_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .describe(
      'the gateway GraphQL API (`/graphql`, `/v1/graphql`) and its read model `graphql-items`; `false`: the routes answer 404 as unknown ones and the projector writes no graphql-items documents (the same in every process of a split deployment). Turned on again, the read model catches up from where it stopped',
    ),
  BUNDLER_INTERVAL_MS: int(100, 3_600_000).default(5_000).describe('time between bundler passes'),
  BUNDLE_MAX_ITEMS: int(1, 10_000).default(10_000).describe('items per bundle'),
  BUNDLE_MAX_BYTES: int(1024, 2 ** 33)
    .default(2 ** 31)
    .describe('bytes per bundle (an item larger than a shared bundle goes alone)'),
  BUNDLE_MAX_WAIT_MS: int(0, 86_400_000).default(300_000).describe('a bundle not full is sent once its oldest item waited this long'),
  CONFIRMATIONS: int(1, 1000).default(18).describe('confirmations after which a bundle is permanent (`FINALIZED`)'),
  DROP_AFTER_BLOCKS: int(1, 10_000).default(50).describe('a bundle not seen this many blocks after its anchor is dropped and its items re-queued'),
  MAX_BUNDLE_ATTEMPTS: int(1, 1000)
    .default(10)
    .describe(
      "an item in this many dropped bundles is `FAILED` (a bundle dropped because another item's stored bytes are damaged counts for none; so does one the service wallet could not pay for, and one whose transaction the gateway never took, down or answering 429/5xx until its anchor expired; a transaction the network took and lost counts)",
    ),
  BUNDLE_CHUNK_CONCURRENCY: int(1, 256)
    .default(32)
    .describe(
      'chunks of a bundle posted to the gateway at once (`POST /chunk`, 256 KiB each): one at a time, each round trip to a far gateway is spent waiting (at 100 ms, 2 GiB take about 14 minutes). Each post in flight holds its chunk (about 1 MiB with its base64 and request body), never more. A failed post stops new ones; those in flight finish, and the retry posts only the chunks the gateway did not take. on arlocal (told by the network name its `/info` answers) `1`, whatever is set, said once in the log: it places chunks in the order they arrive, whatever their offsets; a gateway answering 429 to that many wants fewer',
    ),
  OFFSETS_RETENTION_DAYS: int(1, 36_500).default(365).describe('`/tx/:id/offsets` answers for items accepted within this'),
  NESTED_FREE_MAX_ITEMS: int(0, 100_000)
    .default(1000)
    .describe(
      'entries of the bundles nested in a free item (all depths together) that are indexed, each after its signature is checked; the rest are recorded as not indexed, with the reason (a paid item: 100000)',
    ),
  EVENT_STORE: z.enum(['sqlite', 'esdb']).default('sqlite').describe('`sqlite` (embedded) or `esdb`'),
  EVENTSTORE_URL: z.string().optional().describe('EventStoreDB connection string, with `EVENT_STORE=esdb`'),
  READ_STORE: z.enum(['sqlite', 'mongo']).default('sqlite').describe('`sqlite` (`DATA_DIR/read.db`) or `mongo` (a replica set)'),
  BLOB_STORE: z.enum(['fs', 'gridfs']).default('fs').describe('`fs` (`DATA_DIR/blobs`) or `gridfs` (MongoDB, shared by every replica)'),
  SMALL_BLOB_MAX_BYTES: int(0, 2 ** 20)
    .default(65_536)
    .describe(
      'with `BLOB_STORE=fs`: a blob of at most this many bytes (a small item, a small chunk) is a row of `DATA_DIR/blobs/.small-blobs.db` rather than a file of its own; `0`: every new blob is a file (rows already there are still read) (`src/adapters/fs/tieredBlobStore.ts`)',
    ),
  BLOB_SWEEP: z
    .enum(['true', 'false'])
    .default('true')
    .describe(
      "where uploads are taken, remove the blobs no event owns (what the audit names `blob-orphan`: an item's bytes whose acceptance a crash cut, an ended upload's chunks whose deletion it cut), never an accepted item's; a pass at start-up and every `BLOB_SWEEP_INTERVAL_MS`, one log line each, `orphan_blobs_removed_total` in `/metrics` (`src/app/blobSweep.ts`)",
    ),
  BLOB_SWEEP_GRACE_MS: int(1000, 30 * 86_400_000)
    .default(3_600_000)
    .describe(
      'a blob is removed only once changed at least this long ago and seen orphaned, unchanged, by a pass of the same process at least this long before (a monotonic clock: a step of the wall clock removes nothing young)',
    ),
  BLOB_SWEEP_INTERVAL_MS: int(100, 86_400_000)
    .default(3_600_000)
    .describe('time between sweep passes (each walks the blob store, reading one stream per blob)'),
  RETAIN_PERMANENT_BYTES_MS: int(-1, 3650 * 86_400_000)
    .default(7 * 86_400_000)
    .describe(
      "where uploads are taken, an item's local bytes are deleted this long after its bundle was recorded permanent (`FINALIZED`, `CONFIRMATIONS` deep), as `ItemBytesRetired` on its stream; `GET /:id` then reads them from `GATEWAY_URL` at the item's offset in its bundle transaction, checked against the acceptance's sha256. `-1`: bytes are kept forever (`src/app/retention/retention.ts`, docs/operations.md)",
    ),
  RETAIN_INTERVAL_MS: int(100, 86_400_000)
    .default(600_000)
    .describe(
      'time between retention passes (one process at a time, under a lease; each reads the items whose bundle is permanent and whose bytes are still kept)',
    ),
  RETIRED_READS_MAX: int(1, 10_000)
    .default(32)
    .describe(
      'reads of retired items streamed from the gateway at once, across clients (each client is also held to its connections and read pace); past it, `503` with `Retry-After`',
    ),
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'a mongodb:// or mongodb+srv:// connection string')
    .optional()
    .describe('MongoDB connection string, with `READ_STORE=mongo` or `BLOB_STORE=gridfs` (then required)'),
  MONGO_DATABASE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'letters, digits, _ and -, at most 63')
    .default('upload_service')
    .describe('the MongoDB database'),
  ADDRESS_ETHEREUM: z
    .string()
    .optional()
    .describe('an address listed by `/info` for ethereum (with `ETHEREUM_RPC_URL`: where ETH top-ups are sent, a `0x` address)'),
  ADDRESS_SOLANA: z.string().optional().describe('an address listed by `/info` for solana'),
  ADDRESS_MATIC: z.string().optional().describe('an address listed by `/info` for matic'),
  LOG_LEVEL: z
    .enum(['debug', 'info', 'warn', 'error', 'silent'])
    .default('info')
    .describe(
      '`debug`, `info`, `warn`, `error`, `silent` (JSON lines on stderr, pino: one line per request with its request id; `/health`, `/ready`, `/metrics` at `debug`)',
    ),
  READY_MAX_LAG: int(0, Number.MAX_SAFE_INTEGER)
    .default(10_000)
    .describe(
      '`/ready` answers 503 while the slowest read model is more than this many events behind (checked where queries are served; events are counted, not positions subtracted, up to this bound + 1)',
    ),
  READY_CHECK_TIMEOUT_MS: int(10, 600_000)
    .default(2_000)
    .describe(
      'each `/ready` check (a store\'s read and probe write, the disk, the lag) not answered within this fails with `error: "timeout"`: a store that hangs is not ready',
    ),
  SHUTDOWN_GRACE_MS: int(0, 3_600_000)
    .default(25_000)
    .describe('on SIGTERM/SIGINT, requests in flight get this long to finish before their connections are cut; then the process exits 0'),
  HEAP_GROWING_PERCENT: int(0, 1000)
    .default(200)
    .describe(
      "how far V8 lets the main thread's old generation grow past what a full collection left alive before it collects again, as `1 + percent/100` times it (V8's `--heap-growing-percent`); 0: V8's own factor, which during a large upload can settle on too little room and collect every 50 ms (src/heapTuning.ts)",
    ),
  /** limits against abuse (src/http/listen.ts, src/http/limits.ts) */
  HEADERS_TIMEOUT_MS: int(10, 3_600_000)
    .default(60_000)
    .describe(
      "request line and headers of a kept-alive connection's later requests must arrive within this (slowloris); else 408 `Request Timeout` and the connection is closed",
    ),
  FIRST_REQUEST_TIMEOUT_MS: int(10, 3_600_000)
    .default(10_000)
    .describe(
      "a new connection's first request line and headers must arrive within this; else 408 `Request Timeout` and the connection is closed (a connection held open without a request costs its holder nothing)",
    ),
  BODY_IDLE_TIMEOUT_MS: int(10, 3_600_000)
    .default(120_000)
    .describe(
      'a connection with no byte in either direction for this long is cut (an idle body included, and a client that takes no byte of an answer, such as an item read back)',
    ),
  MIN_BODY_BYTES_PER_SECOND: int(0, 1_000_000_000)
    .default(1024)
    .describe(
      'upload bodies, and payloads read back (`GET /:id`, `/tx/:id/data`): after the grace period, each window must move at least this rate, else the connection is cut (0: off). Time the service itself is behind (unread bytes waiting, the next bytes of a payload being read from disk) does not count against the client',
    ),
  BODY_RATE_GRACE_MS: int(0, 3_600_000)
    .default(10_000)
    .describe("no rate check during the first part of a body (connection set-up, TCP slow start, a phone's radio waking up)"),
  BODY_RATE_WINDOW_MS: int(10, 3_600_000).default(30_000).describe('the window the minimum rate is measured over: a phone may stall for most of one'),
  MAX_CONNECTIONS: int(0, 1_000_000)
    .default(4096)
    .describe(
      "connections open at once (0: no limit; keep it under the process's file limit). At the limit a new connection takes the place of the connection idle the longest (no request in progress) of the network holding the most, so holding every connection locks nobody out; a connection from the network holding the most only takes the place of its own; when none is idle, the new one is closed",
    ),
  MAX_CONNECTIONS_PER_CLIENT: int(0, 1_000_000)
    .default(256)
    .describe(
      "connections open at once from one socket address (an IPv6 /64); past it a new connection is closed at once. Behind a reverse proxy every client has the proxy's address: raise it or set 0 there",
    ),
  MAX_CONNECTIONS_PER_NETWORK: int(0, 1_000_000)
    .default(1024)
    .describe(
      'connections open at once from one network (an IPv4 /24, an IPv6 /48); past it a new connection is closed at once (0: no limit; behind a reverse proxy as above)',
    ),
  MAX_UPLOADS_PER_CLIENT: int(0, 1_000_000)
    .default(64)
    .describe(
      'single uploads, chunks and finalizations in flight per client (`req.ip`, which is the `X-Forwarded-For` client behind a loopback proxy; an IPv6 /64); past it 429 `Too Many Requests` before the body is read (0: no limit)',
    ),
  TEMP_SPACE_BYTES: int(1, Number.MAX_SAFE_INTEGER)
    .default(64 * 2 ** 30)
    .describe(
      'budget of bytes received and not yet accepted: single uploads in flight (their content-length, or their bytes so far without one), chunks in flight, and stored chunks of multi-part uploads not yet at an end (followed from the event store by every process, so they count after a restart and across replicas). An upload that does not fit: 503 `Service unavailable` before its body is read, or as soon as its bytes pass the budget (its bytes deleted)',
    ),
  TEMP_SPACE_PER_CLIENT_BYTES: int(1, Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(
      'the share of that budget one client may hold (its uploads in flight, and the stored chunks of the multi-part uploads it created), so no client can take it all; past it 429 `Too Many Requests`; unset: an eighth of `TEMP_SPACE_BYTES`',
    ),
  MIN_FREE_DISK_BYTES: int(0, Number.MAX_SAFE_INTEGER)
    .default(2 ** 30)
    .describe(
      'an upload, or the copy that assembles a multi-part item on a store that cannot compose it of its chunks (GridFS; the file store writes none), that would leave less free space on the disk of `DATA_DIR`: 503 `Service unavailable`, as is a new multi-part upload while below it, and `/ready` fails `diskSpace` (0: off). The free space is sampled at most once a second; bytes taken or written since the sample count against it, so a burst between two samples cannot go below the floor',
    ),
  /** live status streams (src/http/liveStatus.ts) */
  LIVE_STATUS_STREAMS_PER_CLIENT: int(0, 1_000_000)
    .default(16)
    .describe(
      'status streams (`GET /tx/:id/events`, `GET /chunks/:token/:uploadId/events`) open at once from one client (as for `MAX_UPLOADS_PER_CLIENT`); past it 429 `Too Many Requests` with `Retry-After` (0: no limit)',
    ),
  LIVE_STATUS_HEARTBEAT_MS: int(10, 3_600_000)
    .default(15_000)
    .describe("a status stream sends a heartbeat comment this often: keep it under `BODY_IDLE_TIMEOUT_MS` and any proxy's idle timeout"),
  LIVE_STATUS_MAX_LIFETIME_MS: int(10, 86_400_000).default(1_800_000).describe('a status stream ends after this long; its client resumes with `Last-Event-ID`'),
  LIVE_STATUS_BUFFER_BYTES: int(0, 1_000_000_000)
    .default(262_144)
    .describe(
      "bytes of a status stream waiting for a client that does not take them (beyond the kernel's socket buffers); past it the connection is cut, and the client resumes with `Last-Event-ID`",
    ),
  /** multi-part uploads (src/app/multipart/deps.ts) */
  MAX_CHUNKS_PER_UPLOAD: int(1, 1_000_000)
    .default(10_000)
    .describe('chunks one multi-part upload may record (a re-sent offset replaces its chunk, within the count); past it 400 `Invalid chunk`'),
  MAX_OPEN_UPLOADS_PER_CLIENT: int(0, 1_000_000)
    .default(256)
    .describe(
      'multi-part uploads one client (as for `MAX_UPLOADS_PER_CLIENT`) may hold open (created, not yet finalized, invalid or expired); past it creation answers 429 `Too Many Requests` (0: no limit)',
    ),
  HEADERLESS_UPLOAD_BYTES_PER_CLIENT: int(0, Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(
      "before its header chunk names a payer who can pay, an upload holds at most `FREE_UPLOAD_LIMIT_BYTES` on its own; bytes past that are taken only within this allowance per client, summed over its uploads without a header chunk (clients that send the header chunk last, as Irys' streaming uploader does, need one item's worth); past it 402 `Insufficient balance`. 0: no byte past the free limit before a paying header. Unset: `MAX_DATA_ITEM_SIZE`",
    ),
  HEADERLESS_UPLOAD_LIFETIME_MS: int(1_000, 365 * 86_400_000)
    .default(3_600_000)
    .describe(
      'a multi-part upload whose header chunk (offset 0, naming the owner) has not arrived expires this long after its last chunk or its creation: nobody is known to pay for its bytes',
    ),
  /** top-ups with the users' own tokens (src/app/accounts/topUps.ts) */
  TOPUP_WINC_PER_AR: z
    .string()
    .regex(/^\d+$/, 'a non-negative integer')
    .default('1000000000000')
    .describe(
      "top-ups in AR to the service wallet (`/info`'s `arweave`): winc credited per AR (10^12 winston; the default credits a winston as a winc); `0` turns AR top-ups off",
    ),
  TOPUP_ARWEAVE_CONFIRMATIONS: int(0, 1000)
    .default(18)
    .describe(
      'an AR top-up is credited once the gateway counts this many confirmations (`number_of_confirmations` of `GET /tx/{id}/status`); claimed before, it is answered `confirmed: false` and credited by the periodic check',
    ),
  ETHEREUM_RPC_URL: z
    .url()
    .optional()
    .describe(
      'a JSON-RPC endpoint (a node or a provider): turns on ETH top-ups to `ADDRESS_ETHEREUM` (then required, a `0x` address: the service only reads transfers to it, its key stays with the operator, e.g. in a hardware wallet) at `TOPUP_WINC_PER_ETH` (then required)',
    ),
  TOPUP_WINC_PER_ETH: z.string().regex(/^\d+$/, 'a non-negative integer').optional().describe('winc credited per ETH (10^18 wei), rounded down'),
  TOPUP_ETHEREUM_CONFIRMATIONS: int(0, 1000)
    .default(12)
    .describe("an ETH top-up is credited once its block and the blocks on top of it number this many (its receipt's status must be 1)"),
  TOPUP_ETHEREUM_CHAIN_ID: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "with `ETHEREUM_RPC_URL`: the chain id it must answer (`eth_chainId`; 1 for Ethereum's mainnet), checked at start (another id stops the start) and before its first transaction is read. Unset: not checked",
    ),
  TOPUP_EVM_CHAINS: z
    .string()
    .transform((s, ctx) => {
      try {
        return TopUpEvmChains.parse(JSON.parse(s));
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `a JSON array of chains: ${error instanceof Error ? error.message : String(error)}` });
        return z.NEVER;
      }
    })
    .optional()
    .describe(
      "top-ups on other EVM chains, read as ETH top-ups are (src/adapters/ethereum/rpcTransfers.ts): a JSON array, one object per chain: `token` (the name the clients claim with: turbo-sdk's `base-eth` for Base, `matic` or `pol` for Polygon, one chain for both), `chainId` (what `rpcUrl` must answer to `eth_chainId`: 8453 Base, 137 Polygon; checked at start, another id stops the start, and before the chain's first transaction is read), `rpcUrl`, `address` (where top-ups are sent; `/info` lists it under the token), `wincPerToken` (winc credited per whole native token, 10^18 base units, rounded down), optional `confirmations` (default 12). A transaction is claimed once per chain: its key is the chain's token and its hash",
    ),
  TOPUP_CHECK_INTERVAL_MS: int(100, 86_400_000)
    .default(60_000)
    .describe('how often claimed top-ups short of their confirmations are read again (where commands run, one process at a time under a lease)'),
  TOPUP_PENDING_MAX_AGE_MS: int(1000, 365 * 86_400_000)
    .default(86_400_000)
    .describe(
      'a claim still pending whose transaction the chain no longer knows (never mined, dropped) expires this long after it was made (`TopUpExpired`): it is no longer read, and the transaction may be claimed again (sent again with the same id, it is credited, once)',
    ),
  TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE: int(0, 1_000_000)
    .default(20)
    .describe(
      'top-up claims (`POST /account/balance/:token`) one client (as for `MAX_UPLOADS_PER_CLIENT`) may make in a minute, counted from its first; past it 429 `Too Many Requests` with `Retry-After` before the chain is asked (0: no limit)',
    ),
  TOPUP_UNKNOWN_TX_CACHE_MS: int(0, 3_600_000)
    .default(10_000)
    .describe(
      'a claimed transaction the chain does not know is answered `Invalid transaction` from memory this long (at most 10,000 ids, on a monotonic clock), without asking the chain again (0: never)',
    ),
  /** x402 pay-per-upload in USDC (src/app/x402/x402Upload.ts, docs/x402.md) */
  X402_NETWORKS: z
    .string()
    .transform((s, ctx) => {
      try {
        return X402Networks.parse(JSON.parse(s));
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `a JSON array of networks: ${error instanceof Error ? error.message : String(error)}` });
        return z.NEVER;
      }
    })
    .optional()
    .describe(
      "turns on x402 uploads (`POST /x402/data-item/signed`): a JSON array, one object per network: `network` (x402's name: `base`, `base-sepolia`, ...), `chainId`, `rpcUrl`, `usdc` (the USDC contract), `payTo` (the address paid), optional `eip712Name`/`eip712Version` of the USDC contract (default `USD Coin`/`2`, as on Base), and either `facilitatorUrl` (a facilitator verifies and settles) or `keyFile` (a file holding the 0x private key the service settles with, paying the gas; never in the repository). Unset: the routes answer 404",
    ),
  X402_WINC_PER_USDC: z
    .string()
    .regex(/^[1-9]\d*$/, 'a positive integer')
    .optional()
    .describe('winc one USDC (10^6 atomic units) pays for: an item of price P winc costs ceil(P × 10^6 / rate) atomic units (required with `X402_NETWORKS`)'),
  X402_DATA_ITEM_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'with `X402_NETWORKS`: a file holding the 0x private key of the Ethereum key that signs the data items of `POST /x402/data-item/unsigned` (served only when set; never in the repository)',
    ),
  X402_RPC_TIMEOUT_MS: int(100, 600_000)
    .default(30_000)
    .describe(
      'each JSON-RPC request of an x402 verification or settlement times out after this long; a settlement not mined within six times this ends unknown (the chain then says whether it went through)',
    ),
});

export type Config = ReturnType<typeof parseConfig>;

/** ar-io-node's route for a bundler's headers (src/routes/ar-io.ts) */
export const QUEUE_DATA_ITEM_PATH = '/ar-io/admin/queue-data-item';

/** a bridge gateway's post URL (the route added to a base URL) and its host, as receipts name it */
function opticalGateway(url: string): { url: string; host: string } {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, '');
  return { url: path.endsWith(QUEUE_DATA_ITEM_PATH) ? `${parsed.origin}${path}` : `${parsed.origin}${path}${QUEUE_DATA_ITEM_PATH}`, host: parsed.host };
}

/** every environment variable the service reads (docs/configuration.md, generated from the schema by `npm run docs`, lists each) */
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
  const evmChains = evmTopUpChainsOf(c);
  const bridgeGateways = (c.OPTICAL_BRIDGE_URLS ?? []).map(({ url, key }) => ({ ...opticalGateway(url), key: key ?? c.OPTICAL_BRIDGE_ADMIN_KEY }));
  const keyless = bridgeGateways.filter((g) => g.key === undefined);
  if (keyless.length > 0) {
    throw new ConfigError(
      `invalid configuration:\n  OPTICAL_BRIDGE_URLS: no admin key for ${keyless.map((g) => g.host).join(', ')} (give url=key, or OPTICAL_BRIDGE_ADMIN_KEY)`,
    );
  }
  if (c.X402_NETWORKS && (c.X402_WINC_PER_USDC === undefined || c.X402_NETWORKS.some((n) => !n.facilitatorUrl && !n.keyFile))) {
    throw new ConfigError('invalid configuration:\n  X402_NETWORKS: needs X402_WINC_PER_USDC, and a facilitatorUrl or a keyFile for each network');
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
    opticalBridge: {
      gateways: bridgeGateways.map((g) => ({ ...g, key: g.key! })),
      batchSize: c.OPTICAL_BRIDGE_BATCH_SIZE,
      intervalMs: c.OPTICAL_BRIDGE_INTERVAL_MS,
      timeoutMs: c.OPTICAL_BRIDGE_TIMEOUT_MS,
      retryMs: c.OPTICAL_BRIDGE_RETRY_MS,
      maxAttempts: c.OPTICAL_BRIDGE_MAX_ATTEMPTS,
      queueMax: c.OPTICAL_BRIDGE_QUEUE_MAX,
      healthWindowMs: c.OPTICAL_BRIDGE_HEALTH_WINDOW_MS,
    },
    maxDataItemSize: c.MAX_DATA_ITEM_SIZE,
    strictTags: c.STRICT_TAGS === 'true',
    quarantineRules: c.QUARANTINE_RULES ?? [],
    graphqlEnabled: c.GRAPHQL_ENABLED === 'true',
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
    retention: { retainMs: c.RETAIN_PERMANENT_BYTES_MS, intervalMs: c.RETAIN_INTERVAL_MS, maxGatewayReads: c.RETIRED_READS_MAX },
    mongoUrl: c.MONGO_URL,
    mongoDatabase: c.MONGO_DATABASE,
    addresses: addressesOf(c, evmChains),
    topUps: {
      arweave: { wincPerToken: BigInt(c.TOPUP_WINC_PER_AR), minConfirmations: c.TOPUP_ARWEAVE_CONFIRMATIONS },
      evm: evmChains,
      checkIntervalMs: c.TOPUP_CHECK_INTERVAL_MS,
      pendingMaxAgeMs: c.TOPUP_PENDING_MAX_AGE_MS,
      claimsPerClientPerMinute: c.TOPUP_CLAIMS_PER_CLIENT_PER_MINUTE,
      unknownTxCacheMs: c.TOPUP_UNKNOWN_TX_CACHE_MS,
    },
    x402:
      c.X402_NETWORKS && c.X402_WINC_PER_USDC !== undefined
        ? {
            networks: c.X402_NETWORKS,
            wincPerUsdc: BigInt(c.X402_WINC_PER_USDC),
            rpcTimeoutMs: c.X402_RPC_TIMEOUT_MS,
            dataItemKeyFile: c.X402_DATA_ITEM_KEY_FILE,
          }
        : undefined,
    logLevel: c.LOG_LEVEL,
    readyMaxLag: c.READY_MAX_LAG,
    readyCheckTimeoutMs: c.READY_CHECK_TIMEOUT_MS,
    shutdownGraceMs: c.SHUTDOWN_GRACE_MS,
    heapGrowingPercent: c.HEAP_GROWING_PERCENT,
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
    liveStatus: {
      perClient: c.LIVE_STATUS_STREAMS_PER_CLIENT,
      heartbeatMs: c.LIVE_STATUS_HEARTBEAT_MS,
      maxLifetimeMs: c.LIVE_STATUS_MAX_LIFETIME_MS,
      maxBufferedBytes: c.LIVE_STATUS_BUFFER_BYTES,
    },
  };
}

/** an EVM chain top-ups are taken on (src/app/accounts/topUpChains.ts) */
export interface EvmTopUpChain {
  /** the chain's canonical token name (`canonicalTopUpToken`): its claims' keys begin with it */
  token: string;
  rpcUrl: string;
  /** what the RPC endpoint must answer to `eth_chainId`; undefined: not checked (ETHEREUM_RPC_URL without TOPUP_ETHEREUM_CHAIN_ID) */
  chainId?: number;
  address: string;
  wincPerToken: bigint;
  minConfirmations: number;
}

type ParsedEnv = z.infer<typeof ConfigSchema>;

/**
 * The EVM chains of `ETHEREUM_RPC_URL` (as before: token `ethereum`) and of `TOPUP_EVM_CHAINS`, their
 * tokens canonical. Refused: two entries for one token (`pol` and `matic` are one) or one chain id, a
 * rate of 0 (ETH's `TOPUP_WINC_PER_ETH=0` keeps meaning "off"): a transaction claimable under two names
 * would credit twice.
 */
function evmTopUpChainsOf(c: ParsedEnv): EvmTopUpChain[] {
  const chains: EvmTopUpChain[] = [];
  if (c.ETHEREUM_RPC_URL && c.ADDRESS_ETHEREUM && c.TOPUP_WINC_PER_ETH !== undefined && BigInt(c.TOPUP_WINC_PER_ETH) > 0n) {
    chains.push({
      token: 'ethereum',
      rpcUrl: c.ETHEREUM_RPC_URL,
      ...(c.TOPUP_ETHEREUM_CHAIN_ID !== undefined ? { chainId: c.TOPUP_ETHEREUM_CHAIN_ID } : {}),
      address: c.ADDRESS_ETHEREUM,
      wincPerToken: BigInt(c.TOPUP_WINC_PER_ETH),
      minConfirmations: c.TOPUP_ETHEREUM_CONFIRMATIONS,
    });
  }
  for (const chain of c.TOPUP_EVM_CHAINS ?? []) {
    const token = canonicalTopUpToken(chain.token);
    if (token === 'arweave') throw new ConfigError('invalid configuration:\n  TOPUP_EVM_CHAINS: arweave is no EVM chain');
    chains.push({
      token,
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      address: chain.address,
      wincPerToken: BigInt(chain.wincPerToken),
      minConfirmations: chain.confirmations,
    });
  }
  const twice = (values: unknown[]) => values.find((v, i) => v !== undefined && values.indexOf(v) !== i);
  const token = twice(chains.map((ch) => ch.token));
  if (token !== undefined) throw new ConfigError(`invalid configuration:\n  TOPUP_EVM_CHAINS: ${String(token)} is configured twice`);
  const chainId = twice(chains.map((ch) => ch.chainId));
  if (chainId !== undefined) throw new ConfigError(`invalid configuration:\n  TOPUP_EVM_CHAINS: chain id ${String(chainId)} is configured twice`);
  return chains;
}

/**
 * `/info`'s configured addresses. Each EVM top-up chain's address is listed too, under its token and its
 * aliases (src/wiring/queries.ts; turbo-sdk funds the address `/info` names for its token): one
 * configured here for such a name that is another address is refused.
 */
function addressesOf(c: ParsedEnv, chains: readonly EvmTopUpChain[]): Record<string, string | undefined> {
  const addresses: Record<string, string | undefined> = { ethereum: c.ADDRESS_ETHEREUM, solana: c.ADDRESS_SOLANA, matic: c.ADDRESS_MATIC };
  for (const chain of chains) {
    for (const name of namesOfTopUpToken(chain.token)) {
      const given = addresses[name];
      if (given !== undefined && given.toLowerCase() !== chain.address.toLowerCase()) {
        throw new ConfigError(`invalid configuration:\n  TOPUP_EVM_CHAINS: ${name}'s address ${chain.address} differs from ${given}`);
      }
    }
  }
  return addresses;
}
