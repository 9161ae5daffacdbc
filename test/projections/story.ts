import type { DomainEvent } from '../../src/domain/events.js';
import { schemaVersionOf } from '../../src/domain/upcasters.js';
import { streamName, type RecordedEvent } from '../../src/ports/eventStore.js';
import { dataItemAccepted, itemId } from '../support/events.js';

/**
 * A realistic run of the service as the event store would hold it: payments and approvals, paid,
 * free and multi-part uploads (finalized, invalid, underfunded, expired, still assembling), a bundle
 * payload indexed in parts (one index finished, one still in progress), bundles through every step
 * (waiting for funds, prepared, posted, seeded, confirmed, permanent, dropped counting and not
 * counting an attempt, dropped for a damaged item), an item failed and requeued, a damaged item
 * repaired, a bundle still live, an upload in flight, and the block list. Every projection's specs
 * replay it (projections.unit.test.ts), and each checks that it holds every event type the projection
 * handles: a projection handling a new type fails until the story has one.
 */
const T0 = 1_700_000_000_000;
const payer = 'payer-address';
const approved = 'approved-address';
const [paid, chunked, refused, underfunded, nestedRoot, failing, damagedItem, other, indexing] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(itemId) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const nested = [itemId(10), itemId(11), itemId(12)] as const;
const sha = (n: number) => n.toString(16).padStart(64, '0');
const receiptOf = (id: string, timestamp: number) => dataItemAccepted(id, { timestamp }).data.receipt;
const nestedItem = (id: string, parentId: string, depth: number, offset: number) => ({
  id,
  parentId,
  startOffsetInParentDataItemPayload: offset,
  offsetInRootItem: 1044 + offset,
  rawContentLength: 200,
  payloadDataStart: 100,
  payloadContentType: 'text/plain',
  depth,
});
const prepared = (planId: string, itemIds: string[], t: number): DomainEvent => ({
  type: 'BundlePrepared',
  data: {
    planId,
    itemIds,
    txId: `tx-${planId}`.padEnd(43, '_'),
    reward: '1000',
    anchor: 'anchor',
    anchorHeight: 1000,
    dataRoot: 'root',
    dataSize: 4000,
    tx: { id: `tx-${planId}` },
    timestamp: t,
  },
});
const plan = (planId: string, ids: string[], t: number): DomainEvent => ({
  type: 'BundlePlanned',
  data: {
    planId,
    items: ids.map((id, i) => ({ id, size: 1100, offset: 32 + 64 * ids.length + 1100 * i })),
    headerSize: 32 + 64 * ids.length,
    totalSize: 32 + 64 * ids.length + 1100 * ids.length,
    timestamp: t,
  },
});

/** [stream, event]: the stream each event is appended to, in the order of appends */
const story = (): [string, DomainEvent][] => {
  let t = T0;
  const at = () => (t += 1000);
  const reserve = (reservationId: string, dataItemId: string, winc: string, onBehalfOf?: string): [string, DomainEvent] => [
    `account-${payer}`,
    { type: 'BalanceReserved', data: { address: payer, reservationId, winc, dataItemId, ...(onBehalfOf ? { onBehalfOf } : {}), timestamp: at() } },
  ];
  const settle = (reservationId: string, dataItemId: string, winc: string): [string, DomainEvent] => [
    `account-${payer}`,
    { type: 'ReservationSettled', data: { address: payer, reservationId, winc, dataItemId, timestamp: at() } },
  ];
  const accept = (id: string, extra: Parameters<typeof dataItemAccepted>[1] = {}): [string, DomainEvent] => [
    `dataItem-${id}`,
    dataItemAccepted(id, { timestamp: at(), ...extra }),
  ];
  const upload = (uploadId: string, e: DomainEvent): [string, DomainEvent] => [`upload-${uploadId}`, e];
  const bundle = (planId: string, e: DomainEvent): [string, DomainEvent] => [`bundle-${planId}`, e];
  return [
    // payments and approvals
    [`account-${payer}`, { type: 'AccountCredited', data: { address: payer, winc: '1000000', creditId: 'credit-1', reason: 'top-up', timestamp: at() } }],
    // top-ups with the user's own tokens: one credited at once, one still pending
    [
      `topUp-arweave:${'t'.repeat(43)}`,
      {
        type: 'TopUpClaimed',
        data: {
          token: 'arweave',
          txId: 't'.repeat(43),
          sender: payer,
          address: payer,
          target: 'service-wallet',
          quantity: '5000',
          winc: '5000',
          confirmed: true,
          timestamp: at(),
        },
      },
    ],
    [
      `account-${payer}`,
      {
        type: 'AccountCredited',
        data: {
          address: payer,
          winc: '5000',
          creditId: `arweave:${'t'.repeat(43)}`,
          onChain: { token: 'arweave', txId: 't'.repeat(43), sender: payer, target: 'service-wallet', quantity: '5000', blockHeight: 7 },
          timestamp: at(),
        },
      },
    ],
    [
      `topUp-arweave:${'p'.repeat(43)}`,
      {
        type: 'TopUpClaimed',
        data: {
          token: 'arweave',
          txId: 'p'.repeat(43),
          sender: payer,
          address: payer,
          target: 'service-wallet',
          quantity: '700',
          winc: '700',
          confirmed: false,
          timestamp: at(),
        },
      },
    ],
    [
      `topUp-arweave:${'d'.repeat(43)}`,
      {
        type: 'TopUpClaimed',
        data: {
          token: 'arweave',
          txId: 'd'.repeat(43),
          sender: payer,
          address: payer,
          target: 'service-wallet',
          quantity: '800',
          winc: '800',
          confirmed: false,
          timestamp: at(),
        },
      },
    ],
    [
      `topUp-arweave:${'d'.repeat(43)}`,
      { type: 'TopUpExpired', data: { token: 'arweave', txId: 'd'.repeat(43), address: payer, claimedAt: T0, timestamp: at() } },
    ],
    // x402 settlements: one credited (settled), one failed, one still started
    ...['a', 'b', 'c'].map((n): [string, DomainEvent] => [
      `x402Payment-x402:base:${payer}:0x${n.repeat(64)}`,
      {
        type: 'X402SettlementStarted',
        data: {
          paymentId: `x402:base:${payer}:0x${n.repeat(64)}`,
          network: 'base',
          payer,
          nonce: `0x${n.repeat(64)}`,
          asset: '0xusdc',
          payTo: '0xpayto',
          usdc: '4',
          winc: '12000',
          validBefore: T0 / 1000 + 300,
          dataItemId: paid,
          timestamp: at(),
        },
      },
    ]),
    [
      `account-${payer}`,
      { type: 'AccountCredited', data: { address: payer, winc: '12000', creditId: `x402:base:${payer}:0x${'a'.repeat(64)}`, timestamp: at() } },
    ],
    [
      `x402Payment-x402:base:${payer}:0x${'b'.repeat(64)}`,
      { type: 'X402SettlementFailed', data: { paymentId: `x402:base:${payer}:0x${'b'.repeat(64)}`, payer, reason: 'insufficient_funds', timestamp: at() } },
    ],
    [
      `account-${payer}`,
      { type: 'PaymentApproved', data: { address: payer, approvedAddress: approved, winc: '50000', expiresAt: T0 + 86_400_000, timestamp: at() } },
    ],
    // a paid single upload, and one refused after its reservation (released)
    reserve('r-paid', paid, '11000'),
    accept(paid, { winc: '11000', payer, reservationId: 'r-paid' }),
    settle('r-paid', paid, '11000'),
    reserve('r-refused', refused, '11000'),
    [
      `account-${payer}`,
      {
        type: 'ReservationReleased',
        data: { address: payer, reservationId: 'r-refused', winc: '11000', dataItemId: refused, reason: 'upload refused', timestamp: at() },
      },
    ],
    // a multi-part upload, paid by an approval, one chunk sent again
    upload('u-done', { type: 'UploadCreated', data: { uploadId: 'u-done', token: 'arweave', chunkSize: 600, timestamp: at() } }),
    upload('u-done', {
      type: 'ChunkReceived',
      data: { uploadId: 'u-done', offset: 0, length: 600, sha256: sha(1), blobKey: 'uploads/u-done/0_a', owner: 'owner-address', timestamp: at() },
    }),
    upload('u-done', {
      type: 'ChunkReceived',
      data: { uploadId: 'u-done', offset: 600, length: 500, sha256: sha(2), blobKey: 'uploads/u-done/600_a', timestamp: at() },
    }),
    upload('u-done', {
      type: 'ChunkReceived',
      data: {
        uploadId: 'u-done',
        offset: 600,
        length: 500,
        sha256: sha(2),
        blobKey: 'uploads/u-done/600_b',
        replaced: { length: 500, blobKey: 'uploads/u-done/600_a' },
        timestamp: at(),
      },
    }),
    upload('u-done', { type: 'UploadFinalizeRequested', data: { uploadId: 'u-done', mode: 'async', paidBy: [payer], timestamp: at() } }),
    upload('u-done', { type: 'UploadValidated', data: { uploadId: 'u-done', dataItemId: chunked, size: 1100, timestamp: at() } }),
    reserve('r-chunked', chunked, '11000', approved),
    accept(chunked, { winc: '11000', payer, reservationId: 'r-chunked', uploadId: 'u-done' }),
    settle('r-chunked', chunked, '11000'),
    upload('u-done', { type: 'UploadFinalized', data: { uploadId: 'u-done', dataItemId: chunked, receipt: receiptOf(chunked, t), timestamp: at() } }),
    // multi-part uploads that end otherwise: invalid, underfunded, expired, and one still assembling
    upload('u-bad', { type: 'UploadCreated', data: { uploadId: 'u-bad', token: 'arweave', timestamp: at() } }),
    upload('u-bad', {
      type: 'ChunkReceived',
      data: { uploadId: 'u-bad', offset: 0, length: 300, sha256: sha(3), blobKey: 'uploads/u-bad/0_a', timestamp: at() },
    }),
    upload('u-bad', { type: 'UploadFinalizeRequested', data: { uploadId: 'u-bad', mode: 'sync', paidBy: [], timestamp: at() } }),
    upload('u-bad', { type: 'UploadInvalid', data: { uploadId: 'u-bad', reason: 'signature does not verify', timestamp: at() } }),
    upload('u-poor', { type: 'UploadCreated', data: { uploadId: 'u-poor', token: 'arweave', timestamp: at() } }),
    upload('u-poor', {
      type: 'ChunkReceived',
      data: { uploadId: 'u-poor', offset: 0, length: 1100, sha256: sha(4), blobKey: 'uploads/u-poor/0_a', owner: 'owner-address', timestamp: at() },
    }),
    upload('u-poor', { type: 'UploadFinalizeRequested', data: { uploadId: 'u-poor', mode: 'async', paidBy: [], timestamp: at() } }),
    upload('u-poor', { type: 'UploadValidated', data: { uploadId: 'u-poor', dataItemId: underfunded, size: 1100, timestamp: at() } }),
    upload('u-poor', { type: 'UploadUnderfunded', data: { uploadId: 'u-poor', dataItemId: underfunded, timestamp: at() } }),
    upload('u-old', { type: 'UploadCreated', data: { uploadId: 'u-old', token: 'arweave', timestamp: at() } }),
    upload('u-old', { type: 'UploadExpired', data: { uploadId: 'u-old', timestamp: at() } }),
    upload('u-open', { type: 'UploadCreated', data: { uploadId: 'u-open', token: 'ethereum', chunkSize: 5_000_000, timestamp: at() } }),
    upload('u-open', {
      type: 'ChunkReceived',
      data: { uploadId: 'u-open', offset: 0, length: 5_000_000, sha256: sha(5), blobKey: 'uploads/u-open/0_a', timestamp: at() },
    }),
    // a bundle payload, indexed in two parts (two levels deep, one entry left out); another still being indexed
    accept(nestedRoot, { nestedBundle: true }),
    [
      `dataItem-${nestedRoot}`,
      {
        type: 'NestedItemsIndexed',
        data: {
          id: nestedRoot,
          items: [nestedItem(nested[0], nestedRoot, 1, 32), nestedItem(nested[1], nested[0], 2, 64)],
          verified: true,
          more: true,
          timestamp: at(),
        },
      },
    ],
    [
      `dataItem-${nestedRoot}`,
      {
        type: 'NestedItemsIndexed',
        data: {
          id: nestedRoot,
          items: [nestedItem(nested[2], nestedRoot, 1, 600)],
          unindexed: [{ id: 'x'.repeat(43), reason: 'signature does not verify' }],
          verified: true,
          timestamp: at(),
        },
      },
    ],
    accept(indexing, { nestedBundle: true }),
    [
      `dataItem-${indexing}`,
      { type: 'NestedItemsIndexed', data: { id: indexing, items: [nestedItem(itemId(13), indexing, 1, 32)], verified: true, more: true, timestamp: at() } },
    ],
    // a bundle through every step: waiting for funds, then prepared, posted, seeded, confirmed, permanent
    bundle('p-ok', plan('p-ok', [paid, chunked, nestedRoot], at())),
    bundle('p-ok', { type: 'BundleAwaitingFunds', data: { planId: 'p-ok', reward: '1000', balance: '10', address: 'service-wallet', timestamp: at() } }),
    bundle('p-ok', prepared('p-ok', [paid, chunked, nestedRoot], at())),
    bundle('p-ok', { type: 'BundlePosted', data: { planId: 'p-ok', txId: 'tx-p-ok'.padEnd(43, '_'), timestamp: at() } }),
    bundle('p-ok', { type: 'BundleSeeded', data: { planId: 'p-ok', txId: 'tx-p-ok'.padEnd(43, '_'), timestamp: at() } }),
    bundle('p-ok', {
      type: 'BundleConfirmed',
      data: { planId: 'p-ok', txId: 'tx-p-ok'.padEnd(43, '_'), blockHeight: 1010, confirmations: 2, timestamp: at() },
    }),
    bundle('p-ok', {
      type: 'BundlePermanent',
      data: { planId: 'p-ok', itemIds: [paid, chunked, nestedRoot], txId: 'tx-p-ok'.padEnd(43, '_'), blockHeight: 1010, confirmations: 18, timestamp: at() },
    }),
    // a week later, the paid item's local bytes given up: read from the bundle transaction since
    [
      `dataItem-${paid}`,
      {
        type: 'ItemBytesRetired',
        data: {
          id: paid,
          blobKey: `items/${paid}`,
          sha256: 'a'.repeat(64),
          rawContentLength: 1100,
          planId: 'p-ok',
          bundleId: 'tx-p-ok'.padEnd(43, '_'),
          startOffsetInRootBundle: 32 + 64 * 3,
          permanentAt: at(),
          timestamp: at(),
        },
      },
    ],
    // an item dropped with its bundle until out of attempts, failed, requeued, then dropped again without an attempt counted
    accept(failing),
    bundle('p-lost', plan('p-lost', [failing], at())),
    bundle('p-lost', prepared('p-lost', [failing], at())),
    bundle('p-lost', {
      type: 'BundleDropped',
      data: {
        planId: 'p-lost',
        itemIds: [failing],
        txId: 'tx-p-lost'.padEnd(43, '_'),
        reason: 'not seen 51 blocks after its anchor',
        countsAsAttempt: true,
        timestamp: at(),
      },
    }),
    [`dataItem-${failing}`, { type: 'DataItemFailed', data: { id: failing, attempts: 1, reason: '1 bundles dropped', timestamp: at() } }],
    // its charge refunded, then charged again by its requeue
    [
      `account-${payer}`,
      {
        type: 'ChargeRefunded',
        data: { address: payer, dataItemId: failing, reservationId: 'r-failing', winc: '1100', failure: 1, reason: '1 bundles dropped', timestamp: at() },
      },
    ],
    [`account-${payer}`, { type: 'ItemRecharged', data: { address: payer, dataItemId: failing, winc: '1100', failure: 1, by: 'ops', timestamp: at() } }],
    [
      `dataItem-${failing}`,
      {
        type: 'DataItemRequeued',
        data: {
          id: failing,
          by: 'ops',
          reason: 'gateway healed',
          previousFailure: '1 bundles dropped',
          previousAttempts: 1,
          rawContentLength: 1100,
          acceptedAt: T0,
          timestamp: at(),
        },
      },
    ],
    bundle('p-again', plan('p-again', [failing], at())),
    bundle('p-again', {
      type: 'BundleDropped',
      data: { planId: 'p-again', itemIds: [failing], reason: 'the service wallet cannot pay for it', countsAsAttempt: false, timestamp: at() },
    }),
    // an item found damaged while its bundle was prepared, the bundle dropped for it, the item repaired
    accept(damagedItem),
    accept(other),
    bundle('p-rot', plan('p-rot', [damagedItem, other], at())),
    [
      `dataItem-${damagedItem}`,
      {
        type: 'DataItemDamaged',
        data: { id: damagedItem, blobKey: `items/${damagedItem}`, found: 'digest', size: 1100, sha256: sha(6), planId: 'p-rot', timestamp: at() },
      },
    ],
    bundle('p-rot', {
      type: 'BundleDropped',
      data: {
        planId: 'p-rot',
        itemIds: [damagedItem, other],
        reason: 'stored bytes of 1 item no longer match their acceptance',
        damagedItemIds: [damagedItem],
        countsAsAttempt: true,
        timestamp: at(),
      },
    }),
    // the other item held by an operator while it waits, then released (src/app/quarantine.ts)
    [`dataItem-${other}`, { type: 'DataItemQuarantined', data: { id: other, by: 'ops', reason: 'abuse report', timestamp: at() } }],
    [`dataItem-${other}`, { type: 'DataItemReleased', data: { id: other, by: 'ops', reason: 'report withdrawn', timestamp: at() } }],
    [`dataItem-${damagedItem}`, { type: 'DataItemRepaired', data: { id: damagedItem, sha256: '0'.repeat(64), timestamp: at() } }],
    // the other item in the next bundle, posted and waiting to be seeded; an upload in flight holds a reservation
    bundle('p-next', plan('p-next', [other], at())),
    bundle('p-next', prepared('p-next', [other], at())),
    bundle('p-next', { type: 'BundlePosted', data: { planId: 'p-next', txId: 'tx-p-next'.padEnd(43, '_'), timestamp: at() } }),
    reserve('r-open', itemId(14), '11000'),
    // the approval withdrawn, and the block list
    [`account-${payer}`, { type: 'PaymentApprovalRevoked', data: { address: payer, approvedAddress: approved, timestamp: at() } }],
    ['blocklist', { type: 'AddressBlocked', data: { address: 'spam-address', by: 'ops', reason: 'spam', timestamp: at() } }],
    ['blocklist', { type: 'AddressUnblocked', data: { address: 'spam-address', by: 'ops', reason: 'appeal', timestamp: at() } }],
    // an item FAILED last, its refund still to come
    [`dataItem-${failing}`, { type: 'DataItemFailed', data: { id: failing, attempts: 1, reason: '1 bundles dropped', timestamp: at() } }],
  ];
};

/** the story as recorded: positions 1, 2, 3..., revisions per stream, the metadata of a request */
export function recordedStory(): { event: DomainEvent; recorded: RecordedEvent }[] {
  const revisions = new Map<string, bigint>();
  return story().map(([stream, event], i) => {
    const revision = (revisions.get(stream) ?? -1n) + 1n;
    revisions.set(stream, revision);
    const recorded: RecordedEvent = {
      id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      type: event.type,
      data: event.data,
      metadata: { correlationId: `req-${i + 1}`, schemaVersion: schemaVersionOf(event.type), clientAddress: '203.0.113.7', userAgent: 'story' },
      streamName: streamName(stream),
      revision,
      position: BigInt(i + 1),
      created: (event.data as { timestamp: number }).timestamp,
    };
    return { event, recorded };
  });
}
