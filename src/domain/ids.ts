import { randomUUID, createHash } from 'node:crypto';
import { z } from 'zod';
import { streamName, type StreamName } from '../ports/eventStore.js';

/** Branded ids, parsed at the edge (HTTP params, CLI arguments). */

export const DataItemId = z.string().regex(/^[A-Za-z0-9_-]{43}$/).brand<'DataItemId'>();
export type DataItemId = z.infer<typeof DataItemId>;

/** Any token name a client may put in the path (turbo-sdk and Irys use many). `/tx` means arweave. */
export const Token = z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/).brand<'Token'>();
export type Token = z.infer<typeof Token>;
export const DEFAULT_TOKEN = 'arweave' as Token;

export const dataItemStream = (id: DataItemId): StreamName => streamName(`dataItem-${id}`);

export const newEventId = (): string => randomUUID();

/**
 * A uuid derived from a name: the same retried append gets the same event id, so the store keeps it once.
 * Only for appends whose content is fully determined by the name (never for a first acceptance, whose
 * receipt differs between two racing uploads of the same item).
 */
export function deterministicEventId(name: string): string {
  const h = createHash('sha256').update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
