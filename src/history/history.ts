import type { EventStore } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import { collectionOf, nestedOffsetsProjection, txStatusProjection, type NestedOffsetsDocument, type TxStatusDocument } from '../../projections/index.js';
import { jsonEntry, itemStatusLine, plain, timelineLine, type Dim } from './lines.js';
import { blockEventsOf, candidateTargets, resolveTarget, type HistoryTarget } from './resolve.js';
import type { RecordedEvent } from '../ports/eventStore.js';

export interface HistoryStores {
  eventStore: Pick<EventStore, 'readStream'>;
  /** for where an item is now; without it that line is left out */
  readStore?: Pick<ReadStore, 'get'> | undefined;
}

/** Nothing in the store under that name: the CLI says so and exits 1. */
export class UnknownHistoryId extends Error {
  override readonly name = 'UnknownHistoryId';
}

/** The argument cannot name any stream at all (a usage error). */
export class NotAnId extends Error {
  override readonly name = 'NotAnId';
}

export interface HistoryOptions {
  json?: boolean;
  dim?: Dim;
}

/**
 * The history of whatever `argument` names, as output text in pieces, streamed: a heading and one
 * line per event (and, for a data item, where it is now), or with `json` one JSON array of the
 * recorded events. Throws UnknownHistoryId when no stream matches.
 */
export async function* history(stores: HistoryStores, argument: string, options: HistoryOptions = {}): AsyncGenerator<string> {
  if (candidateTargets(argument).length === 0) throw new NotAnId(`not an item id, upload id, address, plan id or blocklist: ${JSON.stringify(argument)}`);
  const target = await resolveTarget(stores.eventStore, argument);
  if (!target) throw new UnknownHistoryId(await unknownMessage(stores, argument));
  if (options.json) {
    yield* jsonArray(stores, target);
    return;
  }
  yield `${target.stream}`;
  for await (const { recorded, blocklist } of eventsOf(stores, target)) {
    const line = timelineLine(recorded, options.dim ?? plain);
    yield blocklist ? `blocklist${line}` : line;
  }
  if (target.kind === 'dataItem' && stores.readStore) {
    const stored = await stores.readStore.get<TxStatusDocument>(collectionOf(txStatusProjection), target.id);
    yield itemStatusLine(stored?.doc);
  }
}

async function* jsonArray(stores: HistoryStores, target: HistoryTarget): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const { recorded } of eventsOf(stores, target)) {
    yield `${first ? '' : ','}${JSON.stringify(jsonEntry(recorded), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}`;
    first = false;
  }
  yield ']';
}

/**
 * The target's events in order; for an account, the block list's events about its address too, each
 * where it falls among them (by position), marked as from the block list.
 */
async function* eventsOf(stores: HistoryStores, target: HistoryTarget): AsyncGenerator<{ recorded: RecordedEvent; blocklist: boolean }> {
  const blocks = target.kind === 'account' ? await blockEventsOf(stores.eventStore, target.id) : [];
  for await (const recorded of stores.eventStore.readStream(target.stream)) {
    while (blocks.length > 0 && blocks[0]!.position < recorded.position) yield { recorded: blocks.shift()!, blocklist: true };
    yield { recorded, blocklist: false };
  }
  for (const recorded of blocks) yield { recorded, blocklist: true };
}

/** an item nested in an uploaded bundle has no stream of its own: point at its root */
async function unknownMessage(stores: HistoryStores, argument: string): Promise<string> {
  const id = argument.trim();
  const nested = await stores.readStore?.get<NestedOffsetsDocument>(collectionOf(nestedOffsetsProjection), id);
  if (nested) return `${id} has no stream of its own: it is nested in item ${nested.doc.rootId} (npm run history -- ${nested.doc.rootId})`;
  return `no item, upload, account, bundle plan or block list named ${JSON.stringify(id)}`;
}
