/**
 * Gateway port: what the service needs from an Arweave gateway. The upload path needs only the block
 * height, for a receipt's `deadlineHeight`; it must never wait on the network for it.
 */
export interface BlockHeightSource {
  /** the last known block height, synchronously; 0 when none was ever known */
  current(): number;
  /** loads the last known height and starts refreshing it in the background; returns within a bounded time */
  start(): Promise<void>;
  /** stops refreshing; `current()` keeps answering the last known height */
  stop(): void;
}
