import { match } from 'ts-pattern';
import { streamName, type StreamName } from '../../ports/eventStore.js';
import type { BlocklistEvent } from './events.js';

/** The whole list is one stream: a few addresses, read whole by every process that takes uploads. */
export const BLOCKLIST_KEY = 'blocklist';
export const blocklistStream = (): StreamName => streamName(BLOCKLIST_KEY);

export interface Block {
  by: string;
  reason: string;
  /** ms since the epoch when it was blocked */
  since: number;
}

/** blocked addresses, in the order they were blocked */
export type BlocklistState = ReadonlyMap<string, Block>;
export const initialBlocklistState: BlocklistState = new Map();

export type BlocklistCommand =
  | { type: 'Block'; data: { address: string; by: string; reason: string; now: number } }
  | { type: 'Unblock'; data: { address: string; by: string; reason: string; now: number } };

/** Blocking a blocked address, or unblocking one that is not, decides nothing (the first reason stays). */
export const decideBlocklist = (command: BlocklistCommand, state: BlocklistState): BlocklistEvent[] =>
  match(command)
    .returnType<BlocklistEvent[]>()
    .with({ type: 'Block' }, ({ data: { now, ...d } }) => (state.has(d.address) ? [] : [{ type: 'AddressBlocked', data: { ...d, timestamp: now } }]))
    .with({ type: 'Unblock' }, ({ data: { now, ...d } }) => (state.has(d.address) ? [{ type: 'AddressUnblocked', data: { ...d, timestamp: now } }] : []))
    .exhaustive();

export const evolveBlocklist = (state: BlocklistState, event: BlocklistEvent): BlocklistState =>
  match(event)
    .returnType<BlocklistState>()
    .with({ type: 'AddressBlocked' }, ({ data: d }) => new Map(state).set(d.address, { by: d.by, reason: d.reason, since: d.timestamp }))
    .with({ type: 'AddressUnblocked' }, ({ data: d }) => {
      const next = new Map(state);
      next.delete(d.address);
      return next;
    })
    .exhaustive();
