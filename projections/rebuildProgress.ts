/** What a rebuild reports after each batch. `total` is an estimate until the rebuild is caught up. */
export type RebuildProgressListener = (done: number, total: number, eventsPerSecond: number) => void | Promise<void>;

/**
 * How many events `$all` holds up to `head`, from how many were read between `first` and `reached`.
 * Positions are not counts: the SQLite store numbers events 1..n (the estimate is then exact: `head`),
 * EventStoreDB's are byte offsets of commits in its log, so the events still to read are assumed to
 * be as large on average as those read so far. Never less than what was read.
 */
export function estimateTotal(done: number, first: bigint, reached: bigint, head: bigint): number {
  if (reached >= head) return done;
  const estimate = Math.round((done * Number(head - first + 1n)) / Number(reached - first + 1n));
  return Math.max(done, estimate);
}

/**
 * Counts the events as they are read and tells `listener` how far the rebuild is; the rate is the
 * average since the start, steadier than the last batch's for an ETA.
 */
export function progressCounter(listener: RebuildProgressListener | undefined, head: () => Promise<bigint>, now: () => number) {
  const started = now();
  let done = 0;
  let first: bigint | undefined;
  return {
    done: () => done,
    async read(count: number, firstPosition: bigint, lastPosition: bigint): Promise<void> {
      done += count;
      first ??= firstPosition;
      if (!listener) return;
      // asked again each batch: the service keeps appending while the rebuild runs
      const total = estimateTotal(done, first, lastPosition, await head());
      const seconds = Math.max(now() - started, 1) / 1000;
      await listener(done, total, done / seconds);
    },
  };
}
