import type { TransferSource } from '../../ports/transfers.js';
import { canonicalTransferId, creditIdOfTransfer } from '../../domain/topUp/ids.js';
import type { AuditEvent, AuditSink } from '../types.js';

export interface TopUpAuditDeps {
  /** the chains the configuration reads, by token; a credit in another token is counted as not checked */
  transfers: ReadonlyMap<string, TransferSource>;
}

/**
 * Every top-up credit (an `AccountCredited` with `onChain`) is what its chain says: the transaction
 * exists, went from the recorded sender to the recorded address, moved the recorded quantity, did
 * not fail, is in a block, and is credited under its own credit id (`<token>:<txId>`). A chain that
 * cannot be read now leaves its credits not checked (counted, no finding). `TopUpClaimed` and
 * `TopUpExpired` events are the claims and their ends: they credit nothing, the credits are what is
 * checked, so they are not judged on their own, but each against the others: one transfer is
 * credited once, and claimed again only after its claim expired. Transfers are compared by their
 * canonical ids (CONTRACT.md section 10), so no spelling of one hides a second credit; the credit id
 * is the canonical one.
 */
export async function checkTopUps(events: AsyncIterable<AuditEvent>, deps: TopUpAuditDeps, sink: AuditSink): Promise<void> {
  const unreachable = new Set<string>();
  /** each transfer credited so far, by canonical credit id: where it was credited first */
  const credited = new Map<string, string>();
  /** each transfer claimed and not expired, by canonical credit id: the stream of its claim */
  const claimed = new Map<string, string>();
  for await (const { event, recorded } of events) {
    if (event.type === 'TopUpClaimed' || event.type === 'TopUpExpired') {
      const key = creditIdOfTransfer(event.data.token, event.data.txId);
      const earlier = claimed.get(key);
      if (event.type === 'TopUpExpired') claimed.delete(key);
      else if (earlier === undefined) claimed.set(key, recorded.streamName);
      else {
        const detail = `${event.data.token} transaction ${event.data.txId} claimed in ${recorded.streamName} while claimed in ${earlier}`;
        sink.finding({ kind: 'top-up-twice', id: event.data.address, detail });
      }
      continue;
    }
    if (event.type !== 'AccountCredited' || event.data.onChain === undefined) continue;
    const { address, creditId, onChain } = event.data;
    const id = address;
    const where = `${onChain.token} transaction ${onChain.txId}`;
    const key = creditIdOfTransfer(onChain.token, onChain.txId);
    if (creditId !== key) {
      sink.finding({ kind: 'top-up-mismatch', id, detail: `${where} credited under credit id ${creditId}` });
    }
    const first = credited.get(key);
    if (first !== undefined)
      sink.finding({ kind: 'top-up-twice', id, detail: `${where} credited to ${address} (credit id ${creditId}), credited before to ${first}` });
    else credited.set(key, `${address} (credit id ${creditId})`);
    const source = deps.transfers.get(onChain.token);
    if (!source || unreachable.has(onChain.token)) {
      sink.count('topUpsNotChecked');
      continue;
    }
    let transfer;
    try {
      transfer = await source.transfer(canonicalTransferId(onChain.token, onChain.txId) ?? onChain.txId);
    } catch {
      // one failed read stops the checks of that chain: the rest are counted, not read one by one
      unreachable.add(onChain.token);
      sink.count('topUpsNotChecked');
      continue;
    }
    sink.count('topUps');
    if (!transfer) {
      sink.finding({ kind: 'top-up-mismatch', id, detail: `${where} is unknown to the chain` });
      continue;
    }
    const differs = [
      ...(transfer.sender !== onChain.sender ? [`sender ${transfer.sender}, recorded ${onChain.sender}`] : []),
      ...(transfer.target !== onChain.target ? [`target ${transfer.target ?? 'none'}, recorded ${onChain.target}`] : []),
      ...(transfer.quantity.toString() !== onChain.quantity ? [`quantity ${transfer.quantity}, recorded ${onChain.quantity}`] : []),
      ...(transfer.failed ? ['failed on chain'] : []),
      ...(!transfer.status.confirmed
        ? ['not in a block']
        : transfer.status.blockHeight !== onChain.blockHeight
          ? [`in block ${transfer.status.blockHeight}, recorded ${onChain.blockHeight}`]
          : []),
    ];
    if (differs.length > 0) sink.finding({ kind: 'top-up-mismatch', id, detail: `${where}: ${differs.join('; ')}` });
  }
}
