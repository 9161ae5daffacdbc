import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { appendSize, MAX_APPEND_BYTES } from '../../src/ports/eventStore.js';
import { DomainEvent, toNewEvent, type DomainEventType } from '../../src/domain/events.js';
import type { NestedItem } from '../../src/domain/dataItem/events.js';
import { parseConfig } from '../../src/config.js';
import { PART_MAX_BYTES } from '../../src/app/nested/recordNested.js';
import { signBundleTransaction } from '../../src/bundling/transaction.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';

/**
 * Every event kind of the service at its largest, sized as EventStoreDB sizes an append (data +
 * metadata + 2 × type length, on the JSON the adapters write). Each command appends one event, and
 * the nested index one part per append, so an event's size is its append's. The bounds are the
 * service's own: BUNDLE_MAX_ITEMS at its configurable maximum, ids and addresses at their longest,
 * operator texts at the admin API's limits, metadata from a request at its longest (a 128-character
 * request id, a 256-character user agent whose characters each take 2 bytes of JSON).
 */

/** the largest BUNDLE_MAX_ITEMS the configuration takes */
function maxBundleItems(): number {
  const max = parseConfig({ BUNDLE_MAX_ITEMS: '10000' }).bundler.limits.maxItems;
  expect(() => parseConfig({ BUNDLE_MAX_ITEMS: String(max + 1) })).to.throw(/BUNDLE_MAX_ITEMS/);
  return max;
}
const ITEMS = maxBundleItems();

/** the largest BUNDLE_MAX_BYTES the configuration takes: no offset in a bundle of several items, nor their sizes, is larger */
function maxBundleBytes(): number {
  const max = parseConfig({ BUNDLE_MAX_BYTES: String(2 ** 33) }).bundler.limits.maxBytes;
  expect(() => parseConfig({ BUNDLE_MAX_BYTES: String(max + 1) })).to.throw(/BUNDLE_MAX_BYTES/);
  return max;
}
const BUNDLE_BYTES = maxBundleBytes();

const id = (n: number) => `${String(n).padStart(8, '0')}${'I'.repeat(35)}`; // 43 characters, as every item id
const address = 'A'.repeat(44); // base58 ed25519 (44) is the longest native address; ethereum 42, others 43
const planId = 'P'.repeat(22);
const uploadId = 'U'.repeat(24);
const winc = '9'.repeat(40);
/** JSON's widest: a character escaped as \u0001 takes 6 bytes (tag values may hold control characters) */
const widest = (bytes: number) => '\u0001'.repeat(bytes);
/** the Content-Type tag's value at its longest: the tags' 4096 bytes, less the name and Avro's framing */
const contentType = widest(4096 - 'Content-Type'.length - 8);
const reason500 = '"'.repeat(500); // the admin API's Reason: 500 characters, each 2 bytes of JSON at worst
const operator = '"'.repeat(100);
const hosts = Array.from({ length: 16 }, (_, n) => `${String(n).padStart(2, '0')}${'h'.repeat(251)}`); // 16 host names of 253
const receipt = {
  id: id(0),
  owner: id(1),
  dataCaches: hosts,
  fastFinalityIndexes: hosts,
  deadlineHeight: Number.MAX_SAFE_INTEGER,
  timestamp: Number.MAX_SAFE_INTEGER,
  version: '0.2.0' as const,
  winc,
  public: 'n'.repeat(683),
  signature: 's'.repeat(683),
};
const metadata = { correlationId: 'r'.repeat(128), clientAddress: '0000:0000:0000:0000:0000:ffff:255.255.255.255', userAgent: '"'.repeat(256) };
const big = Number.MAX_SAFE_INTEGER;
const timestamp = big;
const itemIds = Array.from({ length: ITEMS }, (_, n) => id(n));
const nestedItem: NestedItem = {
  id: id(1),
  parentId: id(2),
  startOffsetInParentDataItemPayload: big,
  offsetInRootItem: big,
  rawContentLength: big,
  payloadDataStart: big,
  payloadContentType: contentType,
  depth: 8,
};

async function largest(): Promise<DomainEvent[]> {
  const wallet = JSON.parse(readFileSync(SERVICE_WALLET_FILE, 'utf8'));
  const tx = await signBundleTransaction({ jwk: wallet, anchor: 'a'.repeat(64), reward: winc, dataRoot: new Uint8Array(32), dataSize: BUNDLE_BYTES });
  const accepted = {
    id: id(0),
    signatureType: 7,
    owner: id(1),
    nativeAddress: address,
    token: 't'.repeat(32),
    rawContentLength: big,
    payloadDataStart: big,
    payloadContentType: contentType,
    blobKey: `items/${id(0)}`,
    sha256: 'f'.repeat(64),
    winc,
    payer: address,
    reservationId: 'R'.repeat(36),
    timestamp,
    deadlineHeight: big,
    receipt,
    uploadId,
    nestedBundle: true as const,
  };
  /** as many of the widest nested items as a part holds: recordNested closes a part before it passes PART_MAX_BYTES */
  const nestedPart = (): DomainEvent => {
    const items: NestedItem[] = [];
    const event = (): DomainEvent => ({ type: 'NestedItemsIndexed', data: { id: id(0), items, unindexed: [], timestamp, verified: true, more: true } });
    for (;;) {
      items.push(nestedItem);
      if (appendSize([toNewEvent(event(), id(0), metadata)]) > PART_MAX_BYTES) break;
    }
    items.pop();
    return event();
  };
  // the fencing token of the bundler that wrote it (src/app/bundler/fence.ts), at its widest
  const base = { planId, timestamp, fence: Number.MAX_SAFE_INTEGER };
  return [
    { type: 'DataItemAccepted', data: accepted },
    nestedPart(),
    { type: 'DataItemFailed', data: { id: id(0), attempts: big, reason: `${big} bundles dropped`, timestamp } },
    { type: 'DataItemDamaged', data: { id: id(0), blobKey: `items/${id(0)}`, found: 'digest', size: big, sha256: 'f'.repeat(64), planId, timestamp } },
    { type: 'DataItemRepaired', data: { id: id(0), sha256: 'f'.repeat(64), uploadId, timestamp } },
    {
      type: 'ItemBytesRetired',
      data: {
        id: id(0),
        blobKey: `items/${id(0)}`,
        sha256: 'f'.repeat(64),
        rawContentLength: big,
        planId,
        bundleId: id(1),
        startOffsetInRootBundle: big,
        permanentAt: timestamp,
        timestamp,
      },
    },
    // a batch of OPTICAL_BRIDGE_BATCH_SIZE's largest (1000) items of one root, a host at DNS's longest
    {
      type: 'DataItemBridged',
      data: {
        id: id(0),
        items: Array.from({ length: 1000 }, (_, i) => id(i)),
        gateway: `${'g'.repeat(253)}:65535`,
        ok: false,
        status: 599,
        attempts: 1000,
        error: `header not read: the bytes at items/${id(0)}@${big} are not the header of ${id(0)}`,
        timestamp,
      },
    },
    {
      type: 'DataItemRequeued',
      data: {
        id: id(0),
        by: operator,
        reason: reason500,
        previousFailure: `${big} bundles dropped`,
        previousAttempts: big,
        rawContentLength: big,
        acceptedAt: big,
        timestamp,
      },
    },
    { type: 'DataItemQuarantined', data: { id: id(0), by: operator, reason: reason500, rule: 'r'.repeat(64), timestamp } },
    {
      type: 'DataItemReleased',
      data: { id: id(0), by: operator, reason: reason500, refused: { planId: 'p'.repeat(22), txId: id(1) }, timestamp },
    },
    {
      type: 'AccountCredited',
      data: {
        address,
        winc,
        creditId: 'c'.repeat(128),
        reason: reason500,
        onChain: { token: 't'.repeat(32), txId: 'x'.repeat(128), sender: address, target: address, quantity: winc, blockHeight: big },
        timestamp,
      },
    },
    {
      type: 'TopUpClaimed',
      data: { token: 't'.repeat(32), txId: 'x'.repeat(128), sender: address, address, target: address, quantity: winc, winc, confirmed: false, timestamp },
    },
    { type: 'TopUpExpired', data: { token: 't'.repeat(32), txId: 'x'.repeat(128), address, claimedAt: timestamp, timestamp } },
    {
      type: 'X402SettlementStarted',
      data: {
        paymentId: `x402:${'n'.repeat(32)}:${address}:0x${'f'.repeat(64)}`,
        network: 'n'.repeat(32),
        payer: address,
        nonce: `0x${'f'.repeat(64)}`,
        asset: address,
        payTo: address,
        usdc: winc,
        winc,
        validBefore: big,
        dataItemId: id(0),
        timestamp,
      },
    },
    {
      type: 'X402SettlementFailed',
      data: { paymentId: `x402:${'n'.repeat(32)}:${address}:0x${'f'.repeat(64)}`, payer: address, reason: reason500, timestamp },
    },
    { type: 'BalanceReserved', data: { address, reservationId: 'R'.repeat(36), winc, dataItemId: id(0), onBehalfOf: address, timestamp } },
    { type: 'ReservationSettled', data: { address, reservationId: 'R'.repeat(36), winc, dataItemId: id(0), timestamp } },
    { type: 'ReservationReleased', data: { address, reservationId: 'R'.repeat(36), winc, dataItemId: id(0), reason: reason500, timestamp } },
    { type: 'PaymentApproved', data: { address, approvedAddress: address, winc, expiresAt: big, timestamp } },
    { type: 'PaymentApprovalRevoked', data: { address, approvedAddress: address, timestamp } },
    {
      type: 'ChargeRefunded',
      data: { address, dataItemId: id(0), reservationId: 'R'.repeat(36), winc, failure: big, reason: `requeued by ${'o'.repeat(200)}`, timestamp },
    },
    { type: 'ItemRecharged', data: { address, dataItemId: id(0), winc, failure: big, by: 'o'.repeat(200), timestamp } },
    { type: 'UploadCreated', data: { uploadId, token: 't'.repeat(32), chunkSize: big, timestamp } },
    {
      type: 'ChunkReceived',
      data: {
        uploadId,
        offset: big,
        length: big,
        sha256: 'f'.repeat(64),
        blobKey: `uploads/${uploadId}/${big}_${'r'.repeat(22)}`,
        replaced: { length: big, blobKey: `uploads/${uploadId}/${big}_${'r'.repeat(22)}` },
        owner: address,
        timestamp,
      },
    },
    // x-paid-by: at most the 16 KiB of headers Node reads, in addresses of 44 characters and commas
    { type: 'UploadFinalizeRequested', data: { uploadId, mode: 'async', paidBy: Array.from({ length: Math.ceil(16_384 / 45) }, () => address), timestamp } },
    { type: 'UploadValidated', data: { uploadId, dataItemId: id(0), size: big, timestamp } },
    { type: 'UploadFinalized', data: { uploadId, dataItemId: id(0), receipt, existed: true, timestamp } },
    { type: 'UploadInvalid', data: { uploadId, reason: widest(4096), timestamp } },
    { type: 'UploadUnderfunded', data: { uploadId, dataItemId: id(0), timestamp } },
    { type: 'UploadExpired', data: { uploadId, timestamp } },
    {
      type: 'BundlePlanned',
      data: { ...base, items: itemIds.map((id) => ({ id, size: BUNDLE_BYTES, offset: BUNDLE_BYTES })), headerSize: 32 + 64 * ITEMS, totalSize: BUNDLE_BYTES },
    },
    { type: 'BundleAwaitingFunds', data: { ...base, reward: winc, balance: winc, address: id(3) } },
    {
      type: 'BundlePrepared',
      data: {
        ...base,
        itemIds,
        txId: tx.id,
        reward: winc,
        anchor: tx.last_tx,
        dataRoot: tx.data_root,
        dataSize: BUNDLE_BYTES,
        anchorHeight: big,
        tx: { ...tx },
      },
    },
    { type: 'BundlePosted', data: { ...base, txId: id(4) } },
    { type: 'BundleSeeded', data: { ...base, txId: id(4) } },
    { type: 'BundleConfirmed', data: { ...base, txId: id(4), blockHeight: big, confirmations: big } },
    { type: 'BundlePermanent', data: { ...base, itemIds, txId: id(4), blockHeight: big, confirmations: big } },
    // every item damaged: its ids twice, and a reason naming a few
    { type: 'BundleDropped', data: { ...base, itemIds, txId: id(4), reason: reason500, damagedItemIds: itemIds, countsAsAttempt: true } },
    { type: 'BundlerLeaseTaken', data: { holder: `${big}-${'u'.repeat(36)}`, token: Number.MAX_SAFE_INTEGER, timestamp } },
    { type: 'AddressBlocked', data: { address, by: operator, reason: reason500, timestamp } },
    { type: 'AddressUnblocked', data: { address, by: operator, reason: reason500, timestamp } },
  ];
}

describe('event sizes (EventStoreDB refuses an append over 1 MiB)', function () {
  this.timeout(60_000);

  it(`keeps every event kind, at its largest, within MAX_APPEND_BYTES (BUNDLE_MAX_ITEMS ${ITEMS})`, async () => {
    const events = await largest();
    const sizes = new Map<DomainEventType, number>(events.map((e) => [e.type, appendSize([toNewEvent(e, id(0), metadata)])]));
    // every kind the service has is sized here: a new one fails until it is
    expect([...sizes.keys()].sort()).to.deep.equal(DomainEvent.options.map((o) => o.shape.type.value).sort());
    const table = [...sizes]
      .sort((a, b) => b[1] - a[1])
      .map(([type, size]) => `${type.padEnd(24)} ${String(size).padStart(9)} bytes  ${((100 * size) / MAX_APPEND_BYTES).toFixed(1)}%`);
    console.log(`      largest event of each kind (limit ${MAX_APPEND_BYTES}):\n${table.map((l) => `        ${l}`).join('\n')}`);
    expect([...sizes].filter(([, size]) => size > MAX_APPEND_BYTES)).to.deep.equal([]);
    // the nearest: the bundle events that list every item (a drop of a bundle whose items are all damaged lists them twice)
    expect(
      Object.fromEntries(['BundleDropped', 'BundlePlanned', 'BundlePrepared', 'BundlePermanent'].map((t) => [t, sizes.get(t as DomainEventType)])),
    ).to.deep.equal({
      BundleDropped: 921_991,
      BundlePlanned: 910_925,
      BundlePrepared: 462_995,
      BundlePermanent: 461_005,
    });
    // the nested index's parts keep to their own, lower bound
    expect(sizes.get('NestedItemsIndexed')).to.be.at.most(PART_MAX_BYTES);
  });
});
