import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { streamName, type StreamName } from '../ports/eventStore.js';

/**
 * Canonical ids (CONTRACT.md section 10). A client may spell one id several ways; everything keyed
 * by an id (streams, credits, read models, blobs) is keyed by its one canonical spelling, brought
 * about here before anything is looked up.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The spelling of base64url `input` that decodes and re-encodes to itself, or undefined when it
 * has none (a length of 4n+1 characters encodes no whole byte). Base64url carries 6 bits a
 * character: when the bytes do not fill the last character, its spare low bits are ignored by
 * decoders, so 2 or 4 spare bits give 4 or 16 spellings of the same bytes; the canonical one has them zero.
 */
export function canonicalBase64url(input: string): string | undefined {
  if (!BASE64URL.test(input) || input.length % 4 === 1) return undefined;
  return Buffer.from(input, 'base64url').toString('base64url');
}

/**
 * An Arweave id (a transaction, a data item, an address): 32 bytes, 43 base64url characters, the
 * last one carrying 2 spare bits, so 4 spellings decode to the same bytes (and an Arweave gateway,
 * which looks transactions up by the decoded bytes, answers each of them).
 */
export function canonicalArweaveId(input: string): string | undefined {
  return input.length === 43 ? canonicalBase64url(input) : undefined;
}

/** An Ethereum transaction hash: `0x` and 64 hex digits, in lower case (a node takes any case, or `0X`). */
export function canonicalEthereumTxHash(input: string): string | undefined {
  return /^0[xX][0-9a-fA-F]{64}$/.test(input) ? `0x${input.slice(2).toLowerCase()}` : undefined;
}

/** Branded ids, parsed at the edge (HTTP params, CLI arguments): any spelling in, the canonical one out. */

export const DataItemId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/)
  // the regex leaves 43 characters, each one spelling of 32 bytes
  .transform((s) => canonicalArweaveId(s) ?? s)
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
