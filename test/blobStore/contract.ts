import type { BlobStore } from '../../src/ports/blobStore.js';
import { composeContract } from './contract/compose.js';
import { deletionContract } from './contract/deletion.js';
import { keysContract } from './contract/keys.js';
import { listingContract } from './contract/listing.js';
import { partsContract } from './contract/parts.js';
import { readWriteContract } from './contract/readWrite.js';
import { writerContract } from './contract/writer.js';

export interface BlobStoreFixture {
  store: BlobStore;
  /** closes the store and removes everything the fixture made */
  dispose(): Promise<void>;
}

/** Makes a fresh, empty store for one test. */
export type BlobStoreFactory = () => Promise<BlobStoreFixture>;

/**
 * What every blob store adapter must do (fs now, GridFS later). Each test gets its own empty store,
 * so tests never depend on each other's blobs.
 */
export function blobStoreContract(name: string, factory: BlobStoreFactory, options: { composes?: boolean } = {}): void {
  describe(`blob store contract: ${name}`, function () {
    let fixture: BlobStoreFixture | undefined;
    const store = (): BlobStore => {
      if (fixture === undefined) throw new Error('the fixture is made in beforeEach');
      return fixture.store;
    };

    beforeEach(async function () {
      fixture = await factory();
    });
    afterEach(async function () {
      await fixture?.dispose();
      fixture = undefined;
    });

    readWriteContract(store);
    writerContract(store);
    deletionContract(store);
    keysContract(store);
    partsContract(store);
    listingContract(store);
    composeContract(store, options.composes ?? false);
  });
}
