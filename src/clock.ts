/**
 * The service's two clocks, and the one rule for ages, deadlines and expiries (issue 34):
 * - a duration inside one process (a cache entry's age, a back-off, a retry window, a rate) is
 *   measured on the monotonic clock: a step of the wall clock (an operator, NTP after a long
 *   suspend, a VM restored) does not move it;
 * - a time written down to be read after a restart (an upload's creation, the saved block height's
 *   `at`) is a wall-clock time, the only one a later process can read; once read, its age grows with
 *   the monotonic clock (`createStampAges`), so a step while the service runs expires nothing.
 * Only across a restart does a step count: no process saw the time in between.
 * Timestamps that say when something happened (events, receipts) stay on the wall clock.
 */
export interface Clocks {
  /** milliseconds since the epoch, as the system says now; may step either way */
  wall(): number;
  /** milliseconds since an arbitrary origin; never goes back, and no wall-clock step shows in it */
  monotonic(): number;
}

export const systemClocks: Clocks = { wall: () => Date.now(), monotonic: () => performance.now() };

/** `clocks` with the given ones in place of the system's (tests step the wall, or advance the monotonic) */
export const clocksWith = (given: Partial<Clocks> = {}): Clocks => ({ ...systemClocks, ...given });

/**
 * A wall clock that no step moves: the wall time when it was made plus the monotonic time since.
 * For times that are both compared within this process and written down for the next one (the
 * block height's `at`); not for timestamps, which must say the wall time (a clock wrong at start
 * stays wrong here until a restart).
 */
export function anchoredWall(clocks: Clocks = systemClocks): () => number {
  const wallAt = clocks.wall();
  const monotonicAt = clocks.monotonic();
  return () => wallAt + (clocks.monotonic() - monotonicAt);
}

export interface StampAges {
  /**
   * The age of `stamp` (a wall-clock time written earlier, perhaps by another process), known by
   * `key`: when this process first sees that stamp under that key, its age is the wall clock's
   * reading minus it (the lower of the wall clock and `anchoredWall`, so a step between the stamp's
   * writing and this first look does not age it either; never below 0); from then on the age grows
   * with the monotonic clock only. A new stamp under the same key starts again.
   */
  ageOf(key: string, stamp: number): number;
  /** forgets the keys not asked for since the last call: once per full pass over what is tracked */
  endPass(): void;
  /** keys tracked (for tests) */
  size(): number;
}

export function createStampAges(clocks: Clocks = systemClocks): StampAges {
  const anchored = anchoredWall(clocks);
  const seen = new Map<string, { stamp: number; ageThen: number; monotonicThen: number; pass: number }>();
  let pass = 0;
  return {
    ageOf(key, stamp) {
      let entry = seen.get(key);
      const monotonic = clocks.monotonic();
      if (entry === undefined || entry.stamp !== stamp) {
        const wallNow = Math.min(clocks.wall(), anchored());
        entry = { stamp, ageThen: Math.max(0, wallNow - stamp), monotonicThen: monotonic, pass };
        seen.set(key, entry);
      }
      entry.pass = pass;
      return entry.ageThen + Math.max(0, monotonic - entry.monotonicThen);
    },
    endPass() {
      for (const [key, entry] of seen) if (entry.pass !== pass) seen.delete(key);
      pass++;
    },
    size: () => seen.size,
  };
}
