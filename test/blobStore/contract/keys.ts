import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { BlobStore } from '../../../src/ports/blobStore.js';
import { piecesOf, rejectionOf } from '../support.js';

/** Each would escape the root, alias another key, or name nothing. */
const INVALID_KEYS = ['../x', '/abs', 'a//b', 'a/./b', 'a/../b', '', 'a/', '.', '..', 'a\\b', 'a b', 'items/x.bin'];

/** 8 segments of 63 characters, 7 slashes and one more character: 512 in all, the limit. */
const LONGEST_KEY = `${Array.from({ length: 8 }, () => 'k'.repeat(63)).join('/')}x`;

export function keysContract(store: () => BlobStore): void {
  describe('keys', function () {
    for (const key of INVALID_KEYS) {
      it(`refuses ${JSON.stringify(key)} in every operation with a TypeError`, async function () {
        const expected = `invalid blob key: ${JSON.stringify(key)}`;
        const writer = await store().createWriter();
        // one at a time: a rejection left waiting while another is awaited would count as unhandled
        const attempts = [
          () => store().put(key, piecesOf(randomBytes(1))),
          () => writer.commit(key),
          () => store().read(key),
          () => store().read(key, { start: 0, end: 0 }),
          () => store().stat(key),
          () => store().delete(key),
          () => store().deletePrefix(key),
        ];
        for (const attempt of attempts) {
          const error = await rejectionOf(attempt());
          expect(error).to.be.instanceOf(TypeError);
          expect(error.message).to.equal(expected);
        }
        await writer.abort();
      });
    }

    it('accepts every character of the key alphabet', async function () {
      const key = 'ABCXYZ/abcxyz/0189/_-/a_B-9';
      await store().put(key, piecesOf(randomBytes(2)));
      expect(await store().stat(key)).to.deep.equal({ size: 2 });
    });

    it('accepts a key of 512 characters and refuses one of 513', async function () {
      expect(LONGEST_KEY.length).to.equal(512);
      await store().put(LONGEST_KEY, piecesOf(randomBytes(2)));
      expect(await store().stat(LONGEST_KEY)).to.deep.equal({ size: 2 });
      expect(await rejectionOf(store().stat(`${LONGEST_KEY}y`))).to.be.instanceOf(TypeError);
    });
  });
}
