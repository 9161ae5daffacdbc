import { anchoredWall } from '../../clock.js';

/**
 * What block heights a gateway's answers are believed. A gateway that lies about the height (or
 * a broken one) must not move it: receipts sign `deadlineHeight` from it, and the bundler drops a
 * bundle not mined 50 blocks after its anchor by it, so a height too high would drop bundles the
 * network may still mine. A height is refused when it:
 * - goes back more than a fork switch or a gateway node a little behind another explains;
 * - goes up faster than blocks can come: past the last accepted height plus `maxJumpBlocks` plus
 *   one block per `minBlockIntervalMs` since (from Arweave's genesis, before any height is known,
 *   so an absurd height is refused on a first start too).
 * The last accepted height stays in use meanwhile. The ceiling is never raised by an accepted
 * height (only by time), so a gateway answering just under it each time cannot walk the height up
 * faster than blocks can come.
 *
 * Time here is `now`, by default `anchoredWall()` (src/clock.ts): wall-clock milliseconds, since the
 * genesis bound and the saved `at` are wall times, that a step of the system clock does not move. On
 * `Date.now`, a step a day forward moved the ceiling's base a day ahead, and back on the true time
 * the ceiling stood still for that day: every new height refused, receipts and `/ready` at 503.
 */

export interface HeightGuardSettings {
  /** blocks the height may rise beyond one per `minBlockIntervalMs` (arlocal mines many at once) */
  maxJumpBlocks: number;
  /** the shortest average time between blocks believed; Arweave aims at 120 s */
  minBlockIntervalMs: number;
}

export const DEFAULT_HEIGHT_GUARD: HeightGuardSettings = { maxJumpBlocks: 100, minBlockIntervalMs: 30_000 };

/**
 * How far the height may go back and still be believed (the height in use stays the highest one):
 * Arweave's forks are resolved within a few blocks, and gateway nodes behind one address may be a
 * few blocks apart.
 */
export const REORG_TOLERANCE_BLOCKS = 50;

/** Arweave's block 0 (2018-06-08): no honest height is higher than the blocks possible since */
const GENESIS_MS = Date.UTC(2018, 5, 8);

export type HeightVerdict = { accepted: true; height: number } | { accepted: false; reason: string };

export interface HeightGuard {
  /** the last accepted height (the highest), undefined until one is known */
  current(): number | undefined;
  /**
   * when a gateway last answered a height believed (`current()`, or one a little below it), or the
   * time a restored save says: how old the height in use is, saved with it; undefined until a
   * gateway answered, when the restored save did not say when (older state files)
   */
  readAt(): number | undefined;
  /** a height saved earlier; `at` undefined when the save did not say when (older state files) */
  restore(height: number, at: number | undefined): void;
  /** judges a height a gateway answered; a refusal is logged once per change of state, not per answer */
  admit(height: number): HeightVerdict;
  /**
   * from now on, lets the height rise `blocks` beyond one per `minBlockIntervalMs` when that is more
   * than it allows (a gateway that mines many blocks at once: gatewayProfile.ts); never lowers it
   */
  raiseMaxJump(blocks: number): void;
}

export interface HeightGuardOptions extends Partial<HeightGuardSettings> {
  /** wall-clock milliseconds that no step moves (default `anchoredWall()`); shared with the block height source */
  now?: () => number;
  log?: (message: string) => void;
}

export function createHeightGuard({
  maxJumpBlocks = DEFAULT_HEIGHT_GUARD.maxJumpBlocks,
  minBlockIntervalMs = DEFAULT_HEIGHT_GUARD.minBlockIntervalMs,
  now = anchoredWall(),
  log = (message) => console.warn(message),
}: HeightGuardOptions = {}): HeightGuard {
  let last: { height: number; at: number | undefined } | undefined;
  let maxJump = maxJumpBlocks;
  /** the ceiling's line: `base.height + maxJumpBlocks` at `base.at`, one block more per interval */
  let base = { height: 0, at: GENESIS_MS };
  let state: 'accepting' | 'behind' | 'ahead' = 'accepting';

  const blocksSince = (at: number, t: number) => Math.floor(Math.max(0, t - at) / minBlockIntervalMs);
  const ceiling = (t: number) => base.height + maxJump + blocksSince(base.at, t);
  /** the line through (height, t) replaces the ceiling's only where it is lower: time alone raises it */
  const lower = (height: number, t: number) => {
    if (height < base.height + blocksSince(base.at, t)) base = { height, at: t };
  };

  function refuse(height: number, to: 'behind' | 'ahead', reason: string): HeightVerdict {
    if (state !== to) log(`block height ${height} from the gateway refused: ${reason}; keeping ${last?.height ?? 'none'}`);
    state = to;
    return { accepted: false, reason };
  }

  return {
    current: () => last?.height,
    readAt: () => last?.at,

    restore(height, at) {
      if (last === undefined || height > last.height) last = { height, at };
      // a save that does not say when gives no bound on the time since: only the genesis one holds;
      // nor does one dated in the future (the clock was set back since): its line would hold the
      // ceiling still until then
      if (at !== undefined && at <= now()) lower(height, at);
    },

    admit(height) {
      const t = now();
      if (last !== undefined && height < last.height - REORG_TOLERANCE_BLOCKS) {
        return refuse(height, 'behind', `${last.height - height} blocks below the last accepted ${last.height}`);
      }
      const highest = ceiling(t);
      if (height > highest) {
        return refuse(height, 'ahead', `above ${highest}, the most blocks possible since the last accepted height`);
      }
      lower(height, t);
      // the highest stays in use; a believed answer, even a little below it, says it is still current
      last = { height: last === undefined ? height : Math.max(last.height, height), at: t };
      if (state !== 'accepting') log(`block height from the gateway accepted again: ${height}`);
      state = 'accepting';
      return { accepted: true, height: last.height };
    },

    raiseMaxJump(blocks) {
      maxJump = Math.max(maxJump, blocks);
    },
  };
}
