import { expect } from 'chai';
import bs58 from 'bs58';
import type { DataItem, Signer } from 'arbundles';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { receiveDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import { acceptDataItem } from '../../src/app/acceptance/acceptDataItem.js';
import { indexNestedItems } from '../../src/app/nested/recordNested.js';
import type { TestService } from '../support/testService.js';
import { ed25519KeySigners, signedItem, signers, type Ed25519KeySigners } from '../support/items.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { storedBlob } from '../support/storedBlob.js';
import { bundleBytes, bundleItem } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { available, block, credit, expectText, ownerOf, startBlocklistService, upload } from './support.js';

const HTML = [{ name: 'Content-Type', value: 'text/html' }];

/** a bundle item signed by someone not blocked, holding `inner` in a bundle nested in its bundle (depth 2), and a sibling at depth 1 */
async function bundleHolding(inner: DataItem, sibling: DataItem): Promise<DataItem> {
  const middle = await bundleItem(signers.ethereum(), await bundleBytes([inner]));
  return bundleItem(signers.ethereum(), await bundleBytes([sibling, middle]));
}

/**
 * A blocked owner's item nested in someone else's bundle item (CONTRACT.md section 9: 403 is for a
 * blocked owner). Refused before the receipt when the block is in force then; indexed (and so served)
 * never, when the block comes between the receipt and the index.
 */
describe('block list: items nested in bundle items', function () {
  this.timeout(60_000);
  let service: TestService;
  let key: Ed25519KeySigners;
  before(async () => {
    service = await startBlocklistService();
    key = ed25519KeySigners();
  });
  after(() => service?.close());

  const read = (id: string) => fetch(`${service.url}/${id}`);
  async function typesOf(id: string): Promise<string[]> {
    const types: string[] = [];
    for await (const e of service.eventStore.readStream(dataItemStream(id as DataItemId))) types.push(e.type);
    return types;
  }
  const blockedHtml = (signer: Signer) => signedItem(signer, '<h1>blocked content</h1>', HTML);

  it('refuses with 403 Forbidden a bundle item holding an item of a blocked owner, at depth 2, signed under another type than blocked', async () => {
    const blocked = await blockedHtml(key.injectedAptos);
    const sibling = await signedItem(signers.solana(), 'an unblocked sibling');
    const root = await bundleHolding(blocked, sibling);
    const payer = ownerOf(root);
    await credit(service, payer, 1_000_000);
    // blocked by its type-2 address; the nested item is type 5, whose address is the key's sha256
    await block(service, bs58.encode(key.publicKey));

    await expectText(await upload(service, root), 403, 'Forbidden');
    expect(await typesOf(root.id)).to.deep.equal([]);
    expect(await storedBlob(service.dataDir, `items/${root.id}`)).to.equal(undefined);
    expect(await available(service, payer)).to.equal('1000000');
    for (const id of [root.id, blocked.id, sibling.id]) await expectText(await read(id), 404, "TX doesn't exist");
  });

  it('refuses the sync finalize of such a bundle item uploaded in chunks with 403 Forbidden, and ends the upload INVALID', async () => {
    const blocked = await blockedHtml(key.ed25519);
    const root = await bundleHolding(blocked, await signedItem(signers.solana(), 'a sibling'));
    await credit(service, ownerOf(root), 1_000_000);
    const uploadId = await createUpload(service.url);
    await postChunks(service.url, uploadId, root.getRaw(), 3000);

    await expectText(await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' }), 403, 'Forbidden');
    expect(((await (await fetch(`${service.url}/chunks/arweave/${uploadId}/status`)).json()) as { status: string }).status).to.equal('INVALID');
    expect(await typesOf(root.id)).to.deep.equal([]);
    expect(await available(service, ownerOf(root))).to.equal('1000000');
    await expectText(await read(blocked.id), 404, "TX doesn't exist");
  });

  it('indexes no item of an owner blocked after the receipt and before the index: not served, its siblings are', async () => {
    const later = ed25519KeySigners();
    const blocked = await blockedHtml(later.solana);
    const sibling = await signedItem(signers.solana(), 'an unblocked sibling');
    const root = await bundleItem(signers.ethereum(), await bundleBytes([sibling, blocked]));
    // accepted (no block yet), its index held back until the block is in force
    const accept = { ...service.multipart.accept, indexNested: () => undefined };
    const received = await receiveDataItem([root.getRaw()], { blobStore: service.blobStore, maxSize: 1 << 30 });
    const outcome = await acceptDataItem(received, { token: 'arweave', ctx: { requestId: 'blocked-meanwhile' } }, accept);
    expect(outcome.kind).to.equal('accepted');
    await block(service, bs58.encode(later.publicKey));

    const deps = { items: service.items, blobStore: service.blobStore, blocklist: service.multipart.accept.blocklist!, now: Date.now };
    await indexNestedItems(deps, root.id, { correlationId: 'blocked-meanwhile' });
    const [part] = await nestedIndexed(service, root.id);
    expect(part!.items.map((item) => item.id)).to.deep.equal([sibling.id]);
    expect(part!.unindexed).to.deep.equal([{ id: blocked.id, reason: `its owner ${bs58.encode(later.publicKey)} is blocked` }]);
    await expectText(await read(blocked.id), 404, "TX doesn't exist");
    expect((await read(sibling.id)).status).to.equal(200);
    // the bundle item itself was receipted: it stays, bytes and all
    expect((await read(root.id)).status).to.equal(200);
  });

  it('keeps serving a nested item indexed before its owner was blocked, as it does a top-level item accepted before', async () => {
    const before = ed25519KeySigners();
    const nested = await blockedHtml(before.ed25519);
    const topLevel = await signedItem(before.ed25519, 'top level');
    const root = await bundleItem(signers.ethereum(), await bundleBytes([nested]));
    await credit(service, ownerOf(root), 1_000_000);
    expect((await upload(service, root)).status).to.equal(200);
    expect((await upload(service, topLevel)).status).to.equal(200);
    await nestedIndexed(service, root.id);
    await block(service, bs58.encode(before.publicKey));

    const res = await read(nested.id);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html');
    expect((await read(topLevel.id)).status).to.equal(200);
  });
});
