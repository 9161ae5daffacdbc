import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAcceptedHeaders } from '../../src/app/bridge/acceptedHeaders.js';
import { headerText, type Unit } from '../../src/app/bridge/outcomes.js';
import { readOpticalHeader, type ItemPlace } from '../../src/app/bridge/opticalHeader.js';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { createDataItemVerifier, type VerifiedDataItem } from '../../src/verify/index.js';
import { signedItem, signers } from '../support/items.js';

async function verifiedOf(raw: Uint8Array): Promise<VerifiedDataItem> {
  const verifier = createDataItemVerifier({ maxSize: Number.MAX_SAFE_INTEGER });
  verifier.write(raw);
  return verifier.end();
}

const placeOf = (item: VerifiedDataItem): ItemPlace => ({
  id: item.id,
  blobKey: `items/${item.id}`,
  start: 0,
  rawContentLength: item.rawContentLength,
  payloadDataStart: item.payloadDataStart,
});

const unitOf = (place: ItemPlace): Unit => ({
  item: { ...place, rootId: place.id },
  event: { left: 1 },
  queuedAt: 0,
  waiting: new Set(['gateway.test']),
  attempts: new Map(),
});

describe('accepted headers: the bridge takes an accepted item’s header from its acceptance', () => {
  let dir: string;
  let blobStore: BlobStore;
  let items: { raw: Uint8Array; verified: VerifiedDataItem }[];
  before(async () => {
    const tags = [
      { name: 'Content-Type', value: 'text/plain' },
      { name: 'App-Name', value: 'bridge-test' },
    ];
    const signed = await Promise.all([
      signedItem(signers.arweave(), 'first item', tags),
      signedItem(signers.ethereum(), 'second item'),
      signedItem(signers.solana(), 'third item', tags),
    ]);
    items = await Promise.all(signed.map(async (s) => ({ raw: s.getRaw(), verified: await verifiedOf(s.getRaw()) })));
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'accepted-headers-'));
    blobStore = await openFsBlobStore({ root: dir });
    for (const { raw, verified } of items) {
      await blobStore.put(
        `items/${verified.id}`,
        (async function* () {
          yield raw;
        })(),
      );
    }
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the header its stored bytes give, once', async () => {
    const headers = createAcceptedHeaders(8);
    for (const { verified } of items) headers.accepted(verified);
    for (const { verified } of items) {
      const place = placeOf(verified);
      expect(headers.take(place)).to.deep.equal(await readOpticalHeader(blobStore, place));
      expect(headers.take(place)).to.equal(undefined);
    }
    expect(headers.size).to.equal(0);
  });

  it('keeps the newest `max`: the oldest is forgotten first', () => {
    const headers = createAcceptedHeaders(2);
    for (const { verified } of items) headers.accepted(verified);
    expect(headers.size).to.equal(2);
    expect(headers.take(placeOf(items[0]!.verified))).to.equal(undefined);
    expect(headers.take(placeOf(items[1]!.verified))?.id).to.equal(items[1]!.verified.id);
    expect(headers.take(placeOf(items[2]!.verified))?.id).to.equal(items[2]!.verified.id);
  });

  it('gives nothing for a place that is not the item’s own blob from its first byte, and forgets it', () => {
    const headers = createAcceptedHeaders(8);
    const { verified } = items[0]!;
    const place = placeOf(verified);
    for (const other of [
      { ...place, start: 12 },
      { ...place, rawContentLength: place.rawContentLength + 1 },
      { ...place, payloadDataStart: 3 },
    ]) {
      headers.accepted(verified);
      expect(headers.take(other)).to.equal(undefined);
      expect(headers.size).to.equal(0);
    }
  });

  it('headerText: a handed header is posted as it is and not read from the blob store; the rest are read, and counted', async () => {
    const headers = createAcceptedHeaders(8);
    headers.accepted(items[0]!.verified);
    let opened = 0;
    const counting: BlobStore = Object.create(blobStore, {
      open: { value: (key: string) => (opened++, blobStore.open!(key)) },
      read: { value: (key: string, range?: Parameters<BlobStore['read']>[1]) => (opened++, blobStore.read(key, range)) },
    }) as BlobStore;
    const counts = { handed: 0, read: 0 };
    const handed = unitOf(placeOf(items[0]!.verified));
    const read = unitOf(placeOf(items[1]!.verified));
    const texts = [await headerText(counting, handed, headers, counts), await headerText(counting, read, headers, counts)];
    expect(texts).to.deep.equal([
      JSON.stringify(await readOpticalHeader(blobStore, handed.item)),
      JSON.stringify(await readOpticalHeader(blobStore, read.item)),
    ]);
    expect([counts, opened]).to.deep.equal([{ handed: 1, read: 1 }, 1]);
    // once per unit, whatever the gateways
    await headerText(counting, handed, headers, counts);
    await headerText(counting, read, headers, counts);
    expect([counts, opened]).to.deep.equal([{ handed: 1, read: 1 }, 1]);
  });
});
