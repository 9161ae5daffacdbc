import type { TransferSource } from '../../ports/transfers.js';
import { creditIdOfTransfer } from '../../domain/topUp/ids.js';
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
 * checked, so they are not judged on their own.
 */
export async function checkTopUps(events: AsyncIterable<AuditEvent>, deps: TopUpAuditDeps, sink: AuditSink): Promise<void> {
  const unreachable = new Set<string>();
  for await (const { event } of events) {
    if (event.type !== 'AccountCredited' || event.data.onChain === undefined) continue;
    const { address, creditId, onChain } = event.data;
    const id = address;
    const where = `${onChain.token} transaction ${onChain.txId}`;
    if (creditId !== creditIdOfTransfer(onChain.token, onChain.txId)) {
      sink.finding({ kind: 'top-up-mismatch', id, detail: `${where} credited under credit id ${creditId}` });
    }
    const source = deps.transfers.get(onChain.token);
    if (!source || unreachable.has(onChain.token)) {
      sink.count('topUpsNotChecked');
      continue;
    }
    let transfer;
    try {
      transfer = await source.transfer(onChain.txId);
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
