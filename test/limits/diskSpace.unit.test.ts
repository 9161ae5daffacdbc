import { expect } from 'chai';
import { createDiskSpace } from '../../src/adapters/fs/diskSpace.js';

/** A disk whose free space the test sets, and whose samples the test releases one at a time. */
function fakeDisk(free: number) {
  let current = free;
  const pending: (() => void)[] = [];
  return {
    set: (bytes: number) => (current = bytes),
    freeBytesOf: () => new Promise<number>((resolve) => pending.push(() => resolve(current))),
    /** answers the samples asked for so far with the free space as it is now */
    answer: async () => {
      for (const release of pending.splice(0)) release();
      await new Promise((resolve) => setImmediate(resolve));
    },
    asked: () => pending.length,
  };
}

describe('free-disk floor (MIN_FREE_DISK_BYTES)', () => {
  it('counts bytes written since the sample in use, so a burst between two samples cannot go below the floor', async () => {
    const disk = fakeDisk(10_000);
    const space = createDiskSpace({ dir: '.', floorBytes: 1_000, sampleEveryMs: 60_000, freeBytesOf: disk.freeBytesOf });
    const started = space.start();
    await disk.answer();
    await started;
    expect(space.free()).to.equal(10_000);

    expect(space.tryTake(6_000)).to.equal(true);
    // written and given back: the sample (10000 free) does not show them, the estimate does
    space.give(6_000);
    expect(space.free()).to.equal(4_000);
    expect(space.tryTake(3_500)).to.equal(false);
    expect(space.tryTake(3_000)).to.equal(true);
    expect(space.belowFloor()).to.equal(false);
    expect(space.tryTake(1)).to.equal(false);
  });

  it('takes a new sample as the base once it is answered, counting what was written while it was taken', async () => {
    const disk = fakeDisk(10_000);
    let now = 0;
    const space = createDiskSpace({ dir: '.', floorBytes: 1_000, sampleEveryMs: 0, freeBytesOf: disk.freeBytesOf, monotonic: () => now });
    const started = space.start();
    await disk.answer();
    await started;
    expect(space.tryTake(4_000)).to.equal(true);
    space.give(4_000);
    // the disk shows those 4000 bytes, and 1000 written by someone else
    disk.set(5_000);
    now = 1; // the sample in use is older than sampleEveryMs now
    expect(space.free()).to.equal(6_000);
    expect(disk.asked()).to.equal(1);
    // written while the new sample is taken: not in it
    expect(space.tryTake(500)).to.equal(true);
    space.give(500);
    await disk.answer();
    expect(space.free()).to.equal(4_500);
    expect(space.belowFloor()).to.equal(false);
  });

  it('refuses nothing and samples nothing with a floor of 0', async () => {
    const disk = fakeDisk(0);
    const space = createDiskSpace({ dir: '.', floorBytes: 0, freeBytesOf: disk.freeBytesOf });
    await space.start();
    expect(space.tryTake(2 ** 40)).to.equal(true);
    expect(space.belowFloor()).to.equal(false);
    expect(disk.asked()).to.equal(0);
  });
});
