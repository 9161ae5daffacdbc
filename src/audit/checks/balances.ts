import { accountStream } from '../../domain/account/ids.js';
import { isAccountEvent } from '../../domain/account/events.js';
import type { SerializedAccount } from '../../domain/account/serialized.js';
import { availableOf, evolveAccount, initialAccountState, type AccountState } from '../../domain/account/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import type { ReadStore } from '../../ports/readStore.js';
import { accountBalanceProjection, checkpointOf, collectionOf } from '../../../projections/index.js';
import { accountDifferences } from './accountDiff.js';
import { parseRecorded } from '../parse.js';
import type { AuditEvent, AuditSink } from '../types.js';

export interface BalanceDeps {
  eventStore: Pick<EventStore, 'readStream'>;
  readStore: Pick<ReadStore, 'getMany' | 'scan' | 'getCheckpoint'>;
}

const PAGE = 200;

/**
 * Invariant 3: each account's document in the `account-balance` read model equals the replay of its
 * stream, and no account is below zero (available balance, or what an approval has left).
 *
 * A document says which position it reflects, so its stream is replayed up to that position: the
 * check agrees with a projector that is behind or ahead (the service may be running). Documents
 * are read a page at a time and streams one event at a time. Accounts are found in the log (the
 * first event of each account stream) to see a document missing, and in the read model to replay.
 */
export async function checkBalances(events: AsyncIterable<AuditEvent>, deps: BalanceDeps, sink: AuditSink): Promise<void> {
  const collection = collectionOf(accountBalanceProjection);
  const checkpoint = (await deps.readStore.getCheckpoint(checkpointOf(accountBalanceProjection))) ?? -1n;

  let created: { address: string; position: bigint }[] = [];
  const lookForDocuments = async () => {
    const docs = await deps.readStore.getMany<SerializedAccount>(
      collection,
      created.map((c) => c.address),
    );
    for (const { address, position } of created) {
      if (docs.has(address)) continue;
      // a projector still behind this account's first event is late, not wrong
      if (position <= checkpoint)
        sink.finding({ kind: 'balance-missing', id: address, detail: `no ${collection} document, though the projection is past position ${position}` });
      else sink.count('accountsNotProjectedYet');
    }
    created = [];
  };
  for await (const { event, recorded } of events) {
    if (!isAccountEvent(event) || recorded.revision !== 0n) continue;
    created.push({ address: event.data.address, position: recorded.position });
    if (created.length >= PAGE) await lookForDocuments();
  }
  await lookForDocuments();

  let afterId: string | undefined;
  for (;;) {
    const page = await deps.readStore.scan<SerializedAccount>(collection, { ...(afterId !== undefined ? { afterId } : {}), limit: PAGE });
    for (const { id, doc, position } of page) {
      sink.count('accounts');
      const replay = await replayAccount(deps.eventStore, id, position);
      const differs = accountDifferences(doc, replay);
      if (differs.length > 0) sink.finding({ kind: 'balance-mismatch', id, detail: differs.join('; ') });
      checkNotNegative(id, replay, sink);
    }
    if (page.length < PAGE) return;
    afterId = page[page.length - 1]!.id;
  }
}

/** the account as its events up to `position` add up (the position a read-model document reflects) */
async function replayAccount(eventStore: BalanceDeps['eventStore'], address: string, position: bigint): Promise<AccountState> {
  let state = initialAccountState;
  for await (const recorded of eventStore.readStream(accountStream(address))) {
    if (recorded.position > position) break;
    // an event its schema refuses is reported once, by the audit's reader; the replay goes on without it
    const { event } = parseRecorded(recorded);
    if (event && isAccountEvent(event)) state = evolveAccount(state, event);
  }
  return state;
}

function checkNotNegative(address: string, state: AccountState, sink: AuditSink): void {
  const available = availableOf(state);
  if (available < 0n) {
    sink.finding({
      kind: 'balance-negative',
      id: address,
      detail: `available ${available} winc (credited ${state.credited}, spent ${state.spent}, reserved ${state.credited - state.spent - available})`,
    });
  }
  for (const [owner, approval] of state.approvals) {
    if (approval.remaining < 0n) sink.finding({ kind: 'approval-negative', id: address, detail: `approval for ${owner} has ${approval.remaining} winc left` });
  }
}
