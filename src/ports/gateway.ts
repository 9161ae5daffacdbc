/**
 * Gateway port: what the service needs from an Arweave gateway. The upload path needs only the block
 * height, for a receipt's `deadlineHeight`; it must never wait on the network for it, and never signs
 * a receipt without one read from the gateway recently (a made-up deadline would be one already past).
 */
export interface BlockHeightSource {
  /**
   * the block height to sign receipts with, synchronously: the last one read from the gateway (or
   * saved by an earlier run) if it was read at most the configured age ago (BLOCK_HEIGHT_MAX_AGE_MS);
   * undefined when there is none that fresh, and then no receipt may be signed
   */
  current(): number | undefined;
  /** how the height and the gateway stand now, for readiness, the dashboard and metrics */
  health(): BlockHeightHealth;
  /** loads the last known height and starts refreshing it in the background; returns within a bounded time */
  start(): Promise<void>;
  /** stops refreshing; `current()` keeps answering the last known height until it is too old */
  stop(): void;
}

export interface BlockHeightHealth {
  /** the last height read from the gateway (or saved by an earlier run), fresh or not; absent: none ever */
  height?: number;
  /** when `height` was read from the gateway, ms since the epoch; absent when not known */
  readAt?: number;
  /** `current()` answers a height: it was read at most `maxAgeMs` ago */
  fresh: boolean;
  maxAgeMs: number;
  /** the gateway answered the last refresh (false before the first answer) */
  reachable: boolean;
  /** the last refresh's failure (unreachable, an unreadable answer, a height refused), while it lasts */
  lastError?: string;
  lastErrorAt?: number;
}

/**
 * What the bundler needs from an Arweave gateway to put a bundle on chain and follow it there.
 * Every call is bounded in time. Failures are `GatewayRequestError` (retryable: unreachable, timed
 * out, 5xx, 429, an unreadable answer) or `GatewayRejected` (a post refused for good, with the
 * gateway's status and text), both in `src/adapters/gateway/errors.ts`.
 */
export interface ArweaveGateway {
  /** the reward, in winston, a transaction carrying `bytes` bytes of data pays (`GET /price/{bytes}`) */
  price(bytes: number, options?: GatewayCallOptions): Promise<bigint>;
  /** a recent block hash (or tx id) to sign into a transaction's `last_tx` (`GET /tx_anchor`) */
  anchor(options?: GatewayCallOptions): Promise<string>;
  /**
   * Posts a signed format-2 transaction header, its data left out (sent by `postChunk`). Posting
   * a transaction the gateway already has succeeds, so a retry after a lost answer is safe.
   */
  postTransaction(tx: TransactionHeader, options?: GatewayCallOptions): Promise<void>;
  /** posts one chunk of a transaction's data with its merkle proof (`POST /chunk`); reposting is safe */
  postChunk(chunk: ChunkUpload, options?: GatewayCallOptions): Promise<void>;
  /** where a transaction stands (`GET /tx/{id}/status`) */
  transactionStatus(id: string, options?: GatewayCallOptions): Promise<TransactionStatus>;
  /**
   * the height of the gateway's current block (`GET /info`), as far as it is believed: the highest
   * accepted so far; a height the adapter's guard refuses (far behind, or higher than blocks can
   * come) is a GatewayRequestError, so nothing is decided on it
   */
  currentHeight(options?: GatewayCallOptions): Promise<number>;
  /** the block `indepHash` (`GET /block/hash/{id}`): its time (seconds) and the block before it */
  block?(indepHash: string, options?: GatewayCallOptions): Promise<{ timestamp: number; previous: string }>;
  /** what the wallet `address` holds, in winston (`GET /wallet/{address}/balance`); 0 for a wallet the network never saw */
  walletBalance(address: string, options?: GatewayCallOptions): Promise<bigint>;
}

export interface GatewayCallOptions {
  /** abandons the call (the caller stopping); it then rejects */
  signal?: AbortSignal;
}

/** The JSON body of `POST /tx` as arweave-js serialises a signed transaction, with `data` empty. */
export interface TransactionHeader {
  readonly id: string;
  readonly format: 2;
  readonly data_root: string;
  readonly data_size: string;
  readonly signature: string;
}

/** The JSON body of `POST /chunk`, as arweave-js `Transaction.getChunk` builds it. */
export interface ChunkUpload {
  readonly data_root: string;
  readonly data_size: string;
  /** the merkle proof of the chunk, base64url */
  readonly data_path: string;
  /** the offset of the chunk's last byte in the data, decimal */
  readonly offset: string;
  /** the chunk's bytes, base64url */
  readonly chunk: string;
}

export type TransactionStatus =
  /** the gateway has never heard of it (or forgot it: a transaction not mined in time is dropped) */
  | { status: 'not_found' }
  /** in the gateway's mempool, not in a block yet */
  | { status: 'pending' }
  /**
   * in block `blockHeight`, with `confirmations` blocks on top as the gateway counts them
   * (arlocal answers 0 for a transaction in the newest block)
   */
  | { status: 'confirmed'; blockHeight: number; confirmations: number; blockHash?: string };

/**
 * Bytes of a mined transaction's data, as a gateway serves them: what a retired item is read from
 * (src/queries/retiredBytes.ts). Rejects with GatewayRequestError when the gateway does not begin to
 * serve them in time (kind `timeout`) or answers otherwise than with them (`status`, `unreachable`);
 * the stream fails the same ways when they stop coming.
 */
export interface TransactionDataSource {
  /** bytes `start` to `end` (inclusive) of transaction `txId`'s data; `signal` stops the read */
  read(txId: string, range: { start: number; end: number }, signal: AbortSignal): Promise<AsyncIterable<Uint8Array>>;
}
