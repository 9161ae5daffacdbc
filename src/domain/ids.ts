import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { streamName, type StreamName } from '../ports/eventStore.js';

/** Branded ids, parsed at the edge (HTTP params, CLI arguments). */

export const DataItemId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/)
  .brand<'DataItemId'>();
export type DataItemId = z.infer<typeof DataItemId>;

/** Any token name a client may put in the path (turbo-sdk and Irys use many). `/tx` means arweave. */
export const Token = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/)
  .brand<'Token'>();
export type Token = z.infer<typeof Token>;
export const DEFAULT_TOKEN = 'arweave' as Token;

export const dataItemStream = (id: DataItemId): StreamName => streamName(`dataItem-${id}`);

/** where an accepted item's bytes are in the blob store: the one key every part of the service uses */
export const ITEM_BLOB_PREFIX = 'items/';
export const itemBlobKey = (id: string): string => `${ITEM_BLOB_PREFIX}${id}`;

export const newEventId = (): string => randomUUID();
