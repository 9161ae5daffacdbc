import type { EventStore } from '../../ports/eventStore.js';
import type { DataItemRepository } from '../acceptance/dataItems.js';
import type { BlobStore } from '../../ports/blobStore.js';
import { readOpticalHeader } from './opticalHeader.js';
import type { AcceptedHeaders } from './acceptedHeaders.js';
import { bridgedPairs, type ItemToBridge } from './work.js';

/** One item on its way: its header (read once, for every gateway), the gateways it still waits for, its posts to each. */
export interface Unit {
  item: ItemToBridge;
  event: { left: number };
  queuedAt: number;
  header?: Promise<string | Error>;
  waiting: Set<string>;
  attempts: Map<string, number>;
}

/**
 * the unit's header as JSON, once for every gateway: handed over by this process's acceptance
 * (`accepted`), else read from the blob store; the error when it cannot be read
 */
export const headerText = (
  blobStore: BlobStore,
  unit: Unit,
  accepted: Pick<AcceptedHeaders, 'take'> | undefined,
  counts: { handed: number; read: number },
): Promise<string | Error> => {
  if (unit.header) return unit.header;
  const handed = accepted?.take(unit.item);
  counts[handed ? 'handed' : 'read']++;
  unit.header = handed
    ? Promise.resolve(JSON.stringify(handed))
    : readOpticalHeader(blobStore, unit.item).then(
        (h) => JSON.stringify(h),
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
  return unit.header;
};

/** what was done for some units at one gateway, to be recorded on their items' streams */
export interface Outcome {
  units: Unit[];
  host: string;
  ok: boolean;
  status?: number;
  error?: string;
}

/**
 * Records outcomes as `DataItemBridged` on each item's stream (a nested item's on its root's: one
 * event per stream, gateway and batch). The appends of an outcome are made all at once: the event
 * store writes appends made together in one transaction (its group commit), so a batch costs about
 * one write, not one per item. `finish` is told of each unit whose outcome is recorded; one whose
 * append failed is kept and tried again by `retryUnrecorded` (until then the checkpoint stays before it).
 */
export function createOutcomeRecorder(
  deps: { items: Pick<DataItemRepository, 'execute'>; now: () => number; log: (message: string, fields?: Record<string, unknown>) => void },
  finish: (unit: Unit, host: string) => void,
) {
  const unrecorded: Outcome[] = [];

  async function recordOne(outcome: Outcome, rootId: string, units: Unit[]): Promise<void> {
    const data = {
      id: rootId,
      items: units.map((u) => u.item.id),
      gateway: outcome.host,
      ok: outcome.ok,
      ...(outcome.status !== undefined ? { status: outcome.status } : {}),
      attempts: Math.max(...units.map((u) => u.attempts.get(outcome.host) ?? 0)),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    };
    try {
      // on the cached state: the item was accepted, so this appends, and the store checks the revision
      await deps.items.execute({ type: 'RecordBridged', data: { ...data, now: deps.now() } }, { correlationId: 'optical-bridge' }, undefined, {
        onCache: true,
      });
      for (const unit of units) finish(unit, outcome.host);
    } catch (error) {
      deps.log('optical bridge: outcome not recorded yet', { rootId, gateway: outcome.host, error: String(error) });
      unrecorded.push({ ...outcome, units });
    }
  }

  async function record(outcome: Outcome): Promise<void> {
    const byRoot = new Map<string, Unit[]>();
    for (const unit of outcome.units) byRoot.set(unit.item.rootId, [...(byRoot.get(unit.item.rootId) ?? []), unit]);
    await Promise.all([...byRoot].map(([rootId, units]) => recordOne(outcome, rootId, units)));
  }

  return {
    record,
    async retryUnrecorded() {
      await Promise.all(unrecorded.splice(0).map(record));
    },
  };
}

/**
 * The `item host` pairs recorded after `after` up to the head now, and that head: a bridge starting
 * again after the checkpoint posts them no more (their outcomes were appended, the checkpoint not yet
 * written past them).
 */
export async function recordedSince(eventStore: Pick<EventStore, 'readAll' | 'headPosition'>, after: bigint): Promise<{ pairs: Set<string>; until: bigint }> {
  const until = await eventStore.headPosition();
  const pairs = new Set<string>();
  for await (const recorded of eventStore.readAll({ after })) {
    if (recorded.position > until) break;
    for (const pair of bridgedPairs(recorded)) pairs.add(pair);
  }
  return { pairs, until };
}
