import { expect } from 'chai';
import { chunkSizeFor } from '../../src/http/sendBlob.js';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('the buffers a payload is sent through (sendBlob.ts)', () => {
  it('start at 64 KiB and double only once the client has taken 64 of the size before, up to 1 MiB', () => {
    const sizes = [0, 4 * MiB - 1, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB - 1, 32 * MiB, 64 * MiB, 2 ** 31].map(chunkSizeFor);
    expect(sizes).to.deep.equal([64 * KiB, 64 * KiB, 128 * KiB, 256 * KiB, 512 * KiB, 512 * KiB, MiB, MiB, MiB]);
  });
});
