import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { BlobNotFound, type BlobStore } from '../../../src/ports/blobStore.js';
import { bytesOf, piecesOf, rejectionOf } from '../support.js';

export function writerContract(store: () => BlobStore): void {
  const contentOf = async (key: string) => bytesOf(await store().read(key));

  describe('writer', function () {
    it('keeps its bytes invisible under the key until commit', async function () {
      const before = randomBytes(10);
      const after = randomBytes(20);
      await store().put('items/x', piecesOf(before));
      const writer = await store().createWriter();
      await writer.write(after);
      expect(await store().stat('items/x')).to.deep.equal({ size: 10 });
      expect((await contentOf('items/x')).equals(before)).to.equal(true);
      expect(await writer.commit('items/x')).to.deep.equal({ size: 20 });
      expect((await contentOf('items/x')).equals(after)).to.equal(true);
    });

    it('replaces an existing blob on commit, including with a smaller one', async function () {
      await store().put('items/x', piecesOf(randomBytes(5000)));
      const smaller = randomBytes(7);
      const writer = await store().createWriter();
      await writer.write(smaller);
      await writer.commit('items/x');
      expect(await store().stat('items/x')).to.deep.equal({ size: 7 });
      expect((await contentOf('items/x')).equals(smaller)).to.equal(true);
    });

    it('counts bytesWritten across writes', async function () {
      const writer = await store().createWriter();
      expect(writer.bytesWritten).to.equal(0);
      await writer.write(randomBytes(3));
      await writer.write(new Uint8Array(0));
      await writer.write(randomBytes(4));
      expect(writer.bytesWritten).to.equal(7);
      expect(await writer.commit('items/x')).to.deep.equal({ size: 7 });
    });

    it('leaves the key absent after abort, and refuses writes and commits', async function () {
      const writer = await store().createWriter();
      await writer.write(randomBytes(10));
      await writer.abort();
      expect(await store().stat('items/x')).to.equal(undefined);
      expect(await rejectionOf(store().read('items/x'))).to.be.instanceOf(BlobNotFound);
      expect((await rejectionOf(writer.write(randomBytes(1)))).message).to.equal('blob writer aborted');
      expect((await rejectionOf(writer.commit('items/x'))).message).to.equal('blob writer aborted');
    });

    it('accepts abort twice', async function () {
      const writer = await store().createWriter();
      await writer.write(randomBytes(10));
      await writer.abort();
      await writer.abort();
      expect(await store().stat('items/x')).to.equal(undefined);
    });

    it('keeps a committed blob when aborted afterwards', async function () {
      const writer = await store().createWriter();
      await writer.write(randomBytes(10));
      await writer.commit('items/x');
      await writer.abort();
      expect(await store().stat('items/x')).to.deep.equal({ size: 10 });
    });

    it('refuses writes and a second commit once committed', async function () {
      const writer = await store().createWriter();
      await writer.commit('items/x');
      expect((await rejectionOf(writer.write(randomBytes(1)))).message).to.equal('blob writer already committed');
      expect((await rejectionOf(writer.commit('items/y'))).message).to.equal('blob writer already committed');
      expect(await store().stat('items/y')).to.equal(undefined);
    });

    it('stays usable after a commit to an invalid key is refused', async function () {
      const bytes = randomBytes(10);
      const writer = await store().createWriter();
      await writer.write(bytes);
      expect(await rejectionOf(writer.commit('../x'))).to.be.instanceOf(TypeError);
      await writer.commit('items/x');
      expect((await contentOf('items/x')).equals(bytes)).to.equal(true);
    });
  });

  describe('put', function () {
    it('rejects an invalid key before reading anything from the source', async function () {
      let pulled = 0;
      async function* source(): AsyncGenerator<Uint8Array> {
        pulled++;
        yield randomBytes(1);
      }
      expect(await rejectionOf(store().put('../x', source()))).to.be.instanceOf(TypeError);
      expect(pulled).to.equal(0);
    });

    it('rejects with the source failure and leaves the key absent', async function () {
      const failure = new Error('client went away');
      async function* source(): AsyncGenerator<Uint8Array> {
        yield randomBytes(100);
        throw failure;
      }
      expect(await rejectionOf(store().put('items/x', source()))).to.equal(failure);
      expect(await store().stat('items/x')).to.equal(undefined);
    });
  });
}
