import { createHash } from 'node:crypto';
import { expect } from 'chai';
import bs58 from 'bs58';
import type { Signer } from 'arbundles';
import type { TestService } from '../support/testService.js';
import { ed25519KeySigners, ethereumKeySigners, signedItem, signers, type Ed25519KeySigners } from '../support/items.js';
import { createUpload, postChunk, postChunks } from '../support/multipart.js';
import { rawConnection, uploadHead } from '../limits/support.js';
import { admin, expectText, ownerOf, startBlocklistService, upload } from './support.js';

const sha256url = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url');

/**
 * The block list names keys, not spellings: an ed25519 key is one owner whether it signs as type 2
 * (ed25519, address base58), 4 (solana, base58), 5 (injected aptos, address sha256) or as the signer
 * of a type-6 multisig; a secp256k1 key one owner as type 3 or 7 (the same ethereum address).
 */
describe('block list: one key under every signature type that uses it', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    // free up to 10 kB: the items' headers (a multisig's is 3 kB) cost nothing
    service = await startBlocklistService({ FREE_UPLOAD_LIMIT_BYTES: '10000' });
  });
  after(() => service?.close());

  /** the status of an upload of a fresh small (free) item by `signer` */
  const statusOf = async (signer: Signer) => (await upload(service, await signedItem(signer))).status;
  const ed25519Types = (key: Ed25519KeySigners) => ({ 2: key.ed25519, 4: key.solana, 5: key.injectedAptos, 6: key.multiAptos });
  async function statusesOf(typed: Record<number, Signer>): Promise<Record<number, number>> {
    const statuses: Record<number, number> = {};
    for (const [type, signer] of Object.entries(typed)) statuses[Number(type)] = await statusOf(signer);
    return statuses;
  }
  async function blockBy(target: string): Promise<{ address: string; blocked: boolean; changed: boolean }> {
    const res = await admin(service, 'PUT', `/blocklist/${target}`, { by: 'ops-alice', reason: 'abuse report 34' });
    expect(res.status, await res.clone().text()).to.equal(200);
    return (await res.json()) as { address: string; blocked: boolean; changed: boolean };
  }

  it('takes an ed25519 key under types 2, 4, 5 and 6 while it is not blocked', async () => {
    expect(await statusesOf(ed25519Types(ed25519KeySigners()))).to.deep.equal({ 2: 200, 4: 200, 5: 200, 6: 200 });
  });

  it('refuses an ed25519 key blocked by its type-2 address (base58) as type 4, 5 and 6 too, and no other key', async () => {
    const key = ed25519KeySigners();
    expect(ownerOf(await signedItem(key.ed25519))).to.equal(bs58.encode(key.publicKey));
    await blockBy(bs58.encode(key.publicKey));
    expect(await statusesOf(ed25519Types(key))).to.deep.equal({ 2: 403, 4: 403, 5: 403, 6: 403 });
    await expectText(await upload(service, await signedItem(key.injectedAptos)), 403, 'Forbidden');
    expect(await statusesOf(ed25519Types(ed25519KeySigners()))).to.deep.equal({ 2: 200, 4: 200, 5: 200, 6: 200 });
  });

  it('refuses a single upload by a key blocked under another type as soon as its header is in, the rest unread', async () => {
    const key = ed25519KeySigners();
    await blockBy(sha256url(key.publicKey));
    const item = await signedItem(key.ed25519, new Uint8Array(300_000).fill(1));
    const conn = await rawConnection(service.url);
    conn.socket.write(uploadHead('/tx', { 'Content-Length': String(item.getRaw().length) }));
    conn.socket.write(item.getRaw().subarray(0, item.getStartOfData() + 10));
    expect(await conn.closed).to.match(/^HTTP\/1\.1 403 Forbidden\r\n[^]*\r\n\r\nForbidden$/);
  });

  it('refuses an ed25519 key blocked by its type-5 address (sha256, not reversible) as type 2, 4 and 6 too', async () => {
    const key = ed25519KeySigners();
    expect(ownerOf(await signedItem(key.injectedAptos))).to.equal(sha256url(key.publicKey));
    await blockBy(sha256url(key.publicKey));
    expect(await statusesOf(ed25519Types(key))).to.deep.equal({ 2: 403, 4: 403, 5: 403, 6: 403 });
  });

  it("refuses as payer an ed25519 key's type-5 account when the key is blocked by its base58 or its base64url", async () => {
    for (const spell of [(key: Buffer) => bs58.encode(key), (key: Buffer) => key.toString('base64url')]) {
      const key = ed25519KeySigners();
      await blockBy(spell(key.publicKey));
      const res = await upload(service, await signedItem(signers.solana()), { 'x-paid-by': sha256url(key.publicKey) });
      await expectText(res, 403, 'Forbidden');
    }
  });

  it('blocks by the owner key GET /tx/:id answers: an ed25519 key under every type, a secp256k1 key as types 3 and 7, an RSA key', async () => {
    const ed = ed25519KeySigners();
    const eth = ethereumKeySigners();
    const owners: string[] = [];
    for (const signer of [ed.solana, eth.ethereum, signers.arweave()]) {
      const item = await signedItem(signer);
      expect((await upload(service, item)).status).to.equal(200);
      owners.push(((await (await fetch(`${service.url}/tx/${item.id}`)).json()) as { owner: string }).owner);
    }
    const [edOwner, ethOwner, rsaOwner] = owners as [string, string, string];
    expect(edOwner).to.equal(ed.publicKey.toString('base64url'));

    expect(await blockBy(edOwner)).to.deep.include({ address: edOwner, blocked: true, changed: true });
    expect(await statusesOf(ed25519Types(ed))).to.deep.equal({ 2: 403, 4: 403, 5: 403, 6: 403 });

    // a key that is no address stands for the address that names it
    const ethAddress = ownerOf(await signedItem(eth.ethereum));
    expect(await blockBy(ethOwner)).to.deep.include({ address: ethAddress, blocked: true, changed: true });
    expect(await statusesOf({ 3: eth.ethereum, 7: eth.typedEthereum })).to.deep.equal({ 3: 403, 7: 403 });

    const rsaAddress = ownerOf(await signedItem(signers.arweave()));
    expect(await blockBy(rsaOwner)).to.deep.include({ address: rsaAddress, blocked: true, changed: true });
    expect(await statusOf(signers.arweave())).to.equal(403);
    const unblocked = await admin(service, 'DELETE', `/blocklist/${rsaOwner}`, { by: 'ops-bob', reason: 'the shared test key' });
    expect(await unblocked.json()).to.deep.include({ address: rsaAddress, blocked: false, changed: true });
  });

  it('refuses a secp256k1 key blocked by its ethereum address as type 3 and as type 7', async () => {
    for (const blockedAs of ['ethereum', 'typedEthereum'] as const) {
      const eth = ethereumKeySigners();
      await blockBy(ownerOf(await signedItem(eth[blockedAs])));
      expect(await statusesOf({ 3: eth.ethereum, 7: eth.typedEthereum })).to.deep.equal({ 3: 403, 7: 403 });
    }
  });

  it('answers Invalid address to a block of something that is neither an address nor an owner key', async () => {
    const bytes = Buffer.alloc(100, 1).toString('base64url');
    await expectText(await admin(service, 'PUT', `/blocklist/${bytes}`, { by: 'ops-alice', reason: 'x' }), 400, 'Invalid address');
  });

  it('refuses the header chunk of a multi-part upload by an ed25519 key blocked under another type', async () => {
    const key = ed25519KeySigners();
    await blockBy(bs58.encode(key.publicKey));
    const raw = (await signedItem(key.injectedAptos)).getRaw();
    const uploadId = await createUpload(service.url);
    await expectText(await postChunk(service.url, uploadId, 0, raw), 403, 'Forbidden');
  });

  it('refuses at finalize (403, upload INVALID) a key blocked by another of its addresses after its header chunk came in', async () => {
    const key = ed25519KeySigners();
    const item = await signedItem(key.ed25519, new Uint8Array(6000).fill(5));
    const uploadId = await createUpload(service.url);
    await postChunks(service.url, uploadId, item.getRaw(), 3000, [0]);
    // the upload knows its owner by the type-2 address (base58); blocked by the key's sha256, which
    // does not give the base58 back: the item's header does, once it is assembled
    await blockBy(sha256url(key.publicKey));
    await postChunks(service.url, uploadId, item.getRaw(), 3000, [1, 2]);

    await expectText(await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' }), 403, 'Forbidden');
    expect(((await (await fetch(`${service.url}/chunks/arweave/${uploadId}/status`)).json()) as { status: string }).status).to.equal('INVALID');
    await expectText(await fetch(`${service.url}/tx/${item.id}/status`), 404, "TX doesn't exist");
  });
});
