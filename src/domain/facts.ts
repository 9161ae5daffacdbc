import { match } from 'ts-pattern';
import type { DomainEvent } from './events.js';
import type { DataItemDamaged } from './dataItem/events.js';

/** At most this many items of a plan are named in its line; `--json` has them all. */
const PLAN_ITEMS_SHOWN = 5;
/** Likewise for the entries a nested index left out (an attacker's bundle may list thousands). */
const UNINDEXED_SHOWN = 5;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The key facts of an event in one line: amounts, sizes, offsets, statuses, transaction ids. Never
 * bytes (events carry none) nor the signed transaction or receipt signatures (noise to a reader).
 */
export const factsOf = (event: DomainEvent): string =>
  match(event)
    .returnType<string>()
    .with({ type: 'DataItemAccepted' }, ({ data: d }) =>
      [
        `${d.rawContentLength} bytes (payload at ${d.payloadDataStart}, ${d.payloadContentType})`,
        `signature type ${d.signatureType}, owner ${d.nativeAddress}, token ${d.token}`,
        d.payer !== undefined ? `${d.winc} winc paid by ${d.payer} (reservation ${d.reservationId ?? '?'})` : `${d.winc} winc (free)`,
        `sha256 ${d.sha256}`,
        `blob ${d.blobKey}`,
        `deadline height ${d.deadlineHeight}`,
        ...(d.uploadId !== undefined ? [`upload ${d.uploadId}`] : []),
      ].join('; '),
    )
    .with({ type: 'NestedItemsIndexed' }, ({ data: d }) => {
      const depth = d.items.reduce((max, i) => Math.max(max, i.depth), 0);
      const left = d.unindexed ?? [];
      const shown = left.slice(0, UNINDEXED_SHOWN).map((u) => `${u.id} (${u.reason})`);
      const more = left.length - shown.length;
      return [
        `${d.items.length} nested items${d.items.length > 0 ? ` (depth up to ${depth})` : ''}${d.verified ? ', signatures verified' : ''}`,
        ...(left.length > 0 ? [`not indexed: ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`] : []),
        ...(d.more ? ['more in the next part'] : []),
      ].join('; ');
    })
    .with(
      { type: 'DataItemBridged' },
      ({ data: d }) =>
        `${d.items.length} headers ${d.ok ? 'posted to' : 'not taken by'} optical bridge ${d.gateway} after ${d.attempts} posts${d.status !== undefined ? ` (last status ${d.status})` : ''}${d.error !== undefined ? `: ${d.error}` : ''}`,
    )
    .with({ type: 'DataItemFailed' }, ({ data: d }) => `failed after ${d.attempts} bundle attempts: ${d.reason}`)
    .with({ type: 'DataItemDamaged' }, ({ data: d }) => `${damageOf(d)}${d.planId !== undefined ? ` (found in bundle ${d.planId})` : ''}`)
    .with(
      { type: 'DataItemRepaired' },
      ({ data: d }) => `bytes of sha256 ${d.sha256} stored again${d.uploadId !== undefined ? ` by upload ${d.uploadId}` : ''}`,
    )
    .with(
      { type: 'DataItemRequeued' },
      ({ data: d }) => `requeued by ${d.by}: ${d.reason} (it had failed after ${d.previousAttempts} bundle attempts: ${d.previousFailure})`,
    )
    .with({ type: 'DataItemQuarantined' }, ({ data: d }) => `quarantined by ${d.by}: ${d.reason}${d.rule !== undefined ? ` (rule ${d.rule})` : ''}`)
    .with({ type: 'DataItemReleased' }, ({ data: d }) => (d.refused ? `hold refused: ${d.reason}` : `released from quarantine by ${d.by}: ${d.reason}`))
    .with({ type: 'UploadCreated' }, ({ data: d }) => `token ${d.token}${d.chunkSize !== undefined ? `, chunk size ${d.chunkSize}` : ''}`)
    .with(
      { type: 'ChunkReceived' },
      // earlier versions recorded each chunk's sha256
      ({ data: d }) =>
        `bytes [${d.offset}, ${d.offset + d.length}) (${d.length} bytes)${d.sha256 !== undefined ? `, sha256 ${d.sha256}` : ''}, blob ${d.blobKey}`,
    )
    .with({ type: 'UploadFinalizeRequested' }, ({ data: d }) => `${d.mode} finalize${d.paidBy.length > 0 ? `, paid by ${d.paidBy.join(', ')}` : ''}`)
    .with({ type: 'UploadValidated' }, ({ data: d }) => `item ${d.dataItemId}, ${d.size} bytes`)
    .with(
      { type: 'UploadFinalized' },
      ({ data: d }) =>
        `item ${d.dataItemId}, receipt for ${d.receipt.winc} winc, deadline height ${d.receipt.deadlineHeight}${d.existed ? ' (already stored before)' : ''}`,
    )
    .with({ type: 'UploadInvalid' }, ({ data: d }) => `invalid: ${d.reason}`)
    .with({ type: 'UploadUnderfunded' }, ({ data: d }) => `item ${d.dataItemId}: nobody could pay`)
    .with({ type: 'UploadExpired' }, () => 'expired before it was finalized')
    .with({ type: 'AccountCredited' }, ({ data: d }) =>
      d.onChain !== undefined
        ? `+${d.winc} winc (credit ${d.creditId}): top-up, ${d.onChain.token} transaction ${d.onChain.txId} of ${d.onChain.quantity} from ${d.onChain.sender} to ${d.onChain.target}, block ${d.onChain.blockHeight}`
        : `+${d.winc} winc (credit ${d.creditId}${d.reason !== undefined ? `: ${d.reason}` : ''})`,
    )
    .with(
      { type: 'TopUpClaimed' },
      ({ data: d }) =>
        `${d.token} transaction ${d.txId} of ${d.quantity} from ${d.sender} to ${d.target} claimed for ${d.address}: ${d.winc} winc, ${d.confirmed ? 'confirmed' : 'credited once confirmed'}`,
    )
    .with(
      { type: 'TopUpExpired' },
      ({ data: d }) =>
        `claim of ${d.token} transaction ${d.txId} for ${d.address} (made ${iso(d.claimedAt)}) expired: the chain no longer knows the transaction; it may be claimed again`,
    )
    .with(
      { type: 'X402SettlementStarted' },
      ({ data: d }) =>
        `x402 settlement of ${d.usdc} USDC units from ${d.payer} to ${d.payTo} on ${d.network} (nonce ${d.nonce}) started for item ${d.dataItemId}: ${d.winc} winc once settled`,
    )
    .with({ type: 'X402SettlementFailed' }, ({ data: d }) => `x402 settlement ${d.paymentId} failed, no USDC taken: ${d.reason}`)
    .with(
      { type: 'BalanceReserved' },
      ({ data: d }) =>
        `${d.winc} winc reserved for item ${d.dataItemId} (reservation ${d.reservationId}${d.onBehalfOf !== undefined ? `, on behalf of ${d.onBehalfOf}` : ''})`,
    )
    .with({ type: 'ReservationSettled' }, ({ data: d }) => `${d.winc} winc spent on item ${d.dataItemId} (reservation ${d.reservationId})`)
    .with({ type: 'ReservationReleased' }, ({ data: d }) => `${d.winc} winc released for item ${d.dataItemId} (reservation ${d.reservationId}): ${d.reason}`)
    .with(
      { type: 'PaymentApproved' },
      ({ data: d }) => `${d.approvedAddress} may spend up to ${d.winc} winc${d.expiresAt !== undefined ? ` until ${iso(d.expiresAt)}` : ''}`,
    )
    .with({ type: 'PaymentApprovalRevoked' }, ({ data: d }) => `approval of ${d.approvedAddress} revoked`)
    .with(
      { type: 'ChargeRefunded' },
      ({ data: d }) =>
        `+${d.winc} winc refunded for item ${d.dataItemId} (reservation ${d.reservationId}), FAILED${d.failure > 1 ? ` for the ${d.failure}th time` : ''}: ${d.reason}`,
    )
    .with({ type: 'ItemRecharged' }, ({ data: d }) => `${d.winc} winc charged again for item ${d.dataItemId}, requeued by ${d.by} after its refund`)
    .with(
      { type: 'ItemBytesRetired' },
      ({ data: d }) =>
        `local bytes retired (blob ${d.blobKey}, ${d.rawContentLength} bytes): read from tx ${d.bundleId} at ${d.startOffsetInRootBundle}, permanent since ${iso(d.permanentAt)}`,
    )
    .with({ type: 'BundlePlanned' }, ({ data: d }) => {
      const shown = d.items.slice(0, PLAN_ITEMS_SHOWN).map((i) => `${i.id} at ${i.offset} (${i.size} bytes)`);
      const more = d.items.length - shown.length;
      return [
        `${d.items.length} items, header ${d.headerSize} bytes, ${d.totalSize} bytes in all`,
        `${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`,
      ].join('; ');
    })
    .with(
      { type: 'BundleAwaitingFunds' },
      ({ data: d }) => `waiting for funds: reward ${d.reward} winston, wallet ${d.address} holds ${d.balance} winston; no attempt counted`,
    )
    .with(
      { type: 'BundlePrepared' },
      ({ data: d }) => `tx ${d.txId}, ${d.dataSize} bytes, data root ${d.dataRoot}, reward ${d.reward} winston, anchor height ${d.anchorHeight}`,
    )
    .with({ type: 'BundlePosted' }, ({ data: d }) => `tx ${d.txId} posted`)
    .with({ type: 'BundleSeeded' }, ({ data: d }) => `tx ${d.txId} chunks seeded`)
    .with({ type: 'BundleConfirmed' }, ({ data: d }) => `tx ${d.txId} in block ${d.blockHeight}, ${d.confirmations} confirmations`)
    .with(
      { type: 'BundlePermanent' },
      ({ data: d }) => `tx ${d.txId} permanent in block ${d.blockHeight}, ${d.confirmations} confirmations, ${d.itemIds.length} items`,
    )
    .with({ type: 'BundleDropped' }, ({ data: d }) => {
      const damaged = d.damagedItemIds ?? [];
      const back = `${d.itemIds.length - damaged.length} items back to the queue`;
      const items =
        damaged.length > 0
          ? `${back}, not counted as an attempt; damaged: ${damaged.join(', ')}`
          : d.countsAsAttempt === false
            ? `${back}, not counted as an attempt`
            : back;
      return `dropped${d.txId !== undefined ? ` (tx ${d.txId})` : ''}: ${d.reason}; ${items}`;
    })
    .with({ type: 'AddressBlocked' }, ({ data: d }) => `${d.address} blocked by ${d.by}: ${d.reason}`)
    .with({ type: 'AddressUnblocked' }, ({ data: d }) => `${d.address} unblocked by ${d.by}: ${d.reason}`)
    .with({ type: 'BundlerLeaseTaken' }, ({ data: d }) => `${d.holder} became the active bundler, fencing token ${d.token}`)
    .exhaustive();

/** what was found under a damaged item's blob key, in a few words */
export const damageOf = (d: DataItemDamaged['data']): string =>
  match(d.found)
    .returnType<string>()
    .with('missing', () => `stored bytes lost: no blob at ${d.blobKey}`)
    .with('short', () => `stored bytes cut short: blob ${d.blobKey} holds ${d.size ?? '?'} bytes, fewer than accepted`)
    .with('long', () => `stored bytes grown: blob ${d.blobKey} holds at least ${d.size ?? '?'} bytes, more than accepted`)
    .with('digest', () => `stored bytes changed: blob ${d.blobKey} has sha256 ${d.sha256 ?? '?'}, not the accepted one`)
    .exhaustive();
