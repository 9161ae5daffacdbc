import { expect } from 'chai';
import { createHeightGuard, REORG_TOLERANCE_BLOCKS, type HeightGuardOptions } from '../../src/adapters/gateway/heightGuard.js';
import { anchoredWall } from '../../src/clock.js';

const MINUTE = 60_000;
/** 2026-11-24: 8.46 years after Arweave's genesis, some 8.9 million blocks of 30 s */
const TODAY = Date.UTC(2026, 10, 24);

describe('block height guard', () => {
  let clock: number;
  let logged: string[];
  const guard = (options: HeightGuardOptions = {}) =>
    createHeightGuard({ maxJumpBlocks: 100, minBlockIntervalMs: 30_000, now: () => clock, log: (message) => logged.push(message), ...options });

  beforeEach(() => {
    clock = TODAY;
    logged = [];
  });

  it('accepts heights that rise as blocks come, and a burst of up to maxJumpBlocks at once', () => {
    const heights = guard();
    expect(heights.admit(1_800_000)).to.deep.equal({ accepted: true, height: 1_800_000 });
    clock += 2 * MINUTE;
    expect(heights.admit(1_800_001)).to.deep.equal({ accepted: true, height: 1_800_001 });
    expect(heights.admit(1_800_101)).to.deep.equal({ accepted: true, height: 1_800_101 });
    expect(heights.current()).to.equal(1_800_101);
    expect(heights.readAt()).to.equal(clock);
    expect(logged).to.deep.equal([]);
  });

  it('dates the height in use by the last believed answer, one a little below it too; a refusal does not', () => {
    const heights = guard();
    heights.admit(1_800_000);
    clock += MINUTE;
    heights.admit(1_800_000 - 3);
    expect(heights.current()).to.equal(1_800_000);
    expect(heights.readAt()).to.equal(clock);
    const believedAt = clock;
    clock += MINUTE;
    heights.admit(400);
    expect(heights.readAt()).to.equal(believedAt);
  });

  it('restores the time a save says the height was read, and none for a save that does not say', () => {
    const dated = guard();
    dated.restore(1_800_000, TODAY - MINUTE);
    expect(dated.readAt()).to.equal(TODAY - MINUTE);
    const undated = guard();
    undated.restore(1_800_000, undefined);
    expect(undated.current()).to.equal(1_800_000);
    expect(undated.readAt()).to.equal(undefined);
  });

  it('refuses an absurd height before any is known: past the blocks possible since Arweave began', () => {
    const heights = guard();
    expect(heights.admit(9_007_199_254_740_991).accepted).to.equal(false);
    expect(heights.admit(10_000_000).accepted).to.equal(false);
    expect(heights.current()).to.equal(undefined);
    expect(heights.admit(1_800_000)).to.deep.equal({ accepted: true, height: 1_800_000 });
  });

  it('refuses a height more than the reorg tolerance below the last accepted; one within it leaves the highest in use', () => {
    const heights = guard();
    heights.admit(1_800_000);
    expect(heights.admit(1_800_000 - REORG_TOLERANCE_BLOCKS)).to.deep.equal({ accepted: true, height: 1_800_000 });
    expect(heights.admit(1_800_000 - REORG_TOLERANCE_BLOCKS - 1)).to.deep.equal({
      accepted: false,
      reason: `${REORG_TOLERANCE_BLOCKS + 1} blocks below the last accepted 1800000`,
    });
    expect(heights.admit(400)).to.deep.equal({ accepted: false, reason: '1799600 blocks below the last accepted 1800000' });
    expect(heights.current()).to.equal(1_800_000);
  });

  it('refuses a jump past maxJumpBlocks plus one block per minBlockIntervalMs since, and takes it once that much time passed', () => {
    const heights = guard();
    heights.admit(1_800_000);
    expect(heights.admit(1_800_101)).to.deep.equal({ accepted: false, reason: 'above 1800100, the most blocks possible since the last accepted height' });
    clock += 30_000;
    expect(heights.admit(1_800_101)).to.deep.equal({ accepted: true, height: 1_800_101 });
    clock += 60 * MINUTE;
    expect(heights.admit(1_800_500).accepted).to.equal(false);
    expect(heights.admit(1_800_220)).to.deep.equal({ accepted: true, height: 1_800_220 });
  });

  it('cannot be walked up by heights just under its ceiling: only time raises it', () => {
    const heights = guard();
    heights.admit(1_800_000);
    for (let step = 1; step <= 100; step++) expect(heights.admit(1_800_000 + step).accepted, `step ${step}`).to.equal(true);
    expect(heights.admit(1_800_101).accepted).to.equal(false);
    clock += 10 * MINUTE;
    expect(heights.admit(1_800_120)).to.deep.equal({ accepted: true, height: 1_800_120 });
    expect(heights.admit(1_800_121).accepted).to.equal(false);
  });

  it('logs a refusal once per change of state, and the return to accepted heights', () => {
    const heights = guard();
    heights.admit(1_800_000);
    for (let i = 0; i < 3; i++) heights.admit(9_007_199_254_740_991);
    for (let i = 0; i < 3; i++) heights.admit(400);
    heights.admit(9_007_199_254_740_991);
    heights.admit(1_800_001);
    heights.admit(1_800_002);
    expect(logged).to.deep.equal([
      'block height 9007199254740991 from the gateway refused: above 1800100, the most blocks possible since the last accepted height; keeping 1800000',
      'block height 400 from the gateway refused: 1799600 blocks below the last accepted 1800000; keeping 1800000',
      'block height 9007199254740991 from the gateway refused: above 1800100, the most blocks possible since the last accepted height; keeping 1800000',
      'block height from the gateway accepted again: 1800001',
    ]);
  });

  it('restores a saved height with the time it was accepted: the jump allowed counts from then', () => {
    const heights = guard();
    heights.restore(1_800_000, TODAY - 24 * 60 * MINUTE);
    expect(heights.current()).to.equal(1_800_000);
    expect(heights.admit(1_800_000 + 100 + 2880 + 1).accepted).to.equal(false);
    expect(heights.admit(1_800_000 + 720)).to.deep.equal({ accepted: true, height: 1_800_720 });
    expect(heights.admit(1_700_000).accepted).to.equal(false);
  });

  it('restores a height saved without a time (earlier state files): refuses going back, bounds a jump by the genesis ceiling only', () => {
    const heights = guard();
    heights.restore(1_800_000, undefined);
    expect(heights.current()).to.equal(1_800_000);
    expect(heights.admit(1_000).accepted).to.equal(false);
    expect(heights.admit(9_007_199_254_740_991).accepted).to.equal(false);
    expect(heights.admit(1_810_000)).to.deep.equal({ accepted: true, height: 1_810_000 });
    expect(heights.admit(1_810_101).accepted).to.equal(false);
  });

  describe('on the service clock (anchoredWall), whose wall clock steps', () => {
    const DAY = 24 * 60 * MINUTE;
    let wall: number;
    let monotonic: number;
    const stepping = () => {
      wall = TODAY;
      monotonic = 0;
      return guard({ now: anchoredWall({ wall: () => wall, monotonic: () => monotonic }) });
    };

    it('takes the heights that real time allows after the wall clock stepped a day forward and a day back', () => {
      const heights = stepping();
      expect(heights.admit(1_800_000)).to.deep.equal({ accepted: true, height: 1_800_000 });
      wall += DAY;
      monotonic += 2 * MINUTE;
      expect(heights.admit(1_800_001)).to.deep.equal({ accepted: true, height: 1_800_001 });
      expect(heights.readAt()).to.equal(TODAY + 2 * MINUTE);
      wall -= DAY;
      monotonic += 2 * MINUTE;
      expect(heights.admit(1_800_002)).to.deep.equal({ accepted: true, height: 1_800_002 });
      // 200 blocks in 100 minutes: past the burst, within the blocks the real time since allows
      monotonic += 100 * MINUTE;
      expect(heights.admit(1_800_200)).to.deep.equal({ accepted: true, height: 1_800_200 });
      expect(heights.readAt()).to.equal(TODAY + 104 * MINUTE);
      expect(logged).to.deep.equal([]);
    });

    it('gives the wall clock no say in the ceiling: a day forward raises it by no block', () => {
      const heights = stepping();
      heights.admit(1_800_000);
      wall += DAY;
      expect(heights.admit(1_800_101).accepted).to.equal(false);
      monotonic += 30_000;
      expect(heights.admit(1_800_101)).to.deep.equal({ accepted: true, height: 1_800_101 });
    });

    it('bounds nothing by a saved time in its future (the clock set back since the save): the genesis ceiling holds', () => {
      const heights = stepping();
      heights.restore(1_800_000, TODAY + DAY);
      expect(heights.admit(1_800_000 + 101 + 720)).to.deep.equal({ accepted: true, height: 1_800_821 });
    });
  });
});
