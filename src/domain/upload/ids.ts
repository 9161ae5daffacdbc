import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { streamName, type StreamName } from '../../ports/eventStore.js';
import { canonicalBase64url } from '../ids.js';

/** 144 random bits, base64url: unguessable, URL-safe, and never `-1` (the router's finalize marker). */
export const newUploadId = (): UploadId => randomBytes(18).toString('base64url') as UploadId;

/**
 * As created, or another spelling of the same bytes brought to it (an id of 22 or 23 characters has
 * spare bits in its last one: see canonicalBase64url); a length that spells no bytes names no upload.
 */
export const UploadId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{22,64}$/)
  .transform((s, ctx) => canonicalBase64url(s) ?? (ctx.addIssue({ code: 'custom', message: 'not an upload id' }), z.NEVER))
  .brand<'UploadId'>();
export type UploadId = z.infer<typeof UploadId>;

export const uploadStream = (id: string): StreamName => streamName(`upload-${id}`);

/** an upload's bytes live under its prefix, deleted as a whole when the upload ends */
export const uploadPrefix = (id: string) => `uploads/${id}`;
/**
 * Each chunk request writes a blob of its own, never written again once complete: a request still
 * writing when the upload is finalized (or a second one at the same offset) cannot change the bytes
 * that were verified. Random, so two requests for one offset never share a blob.
 */
export const newChunkKey = (id: string, offset: number) => `${uploadPrefix(id)}/${offset}_${randomBytes(8).toString('hex')}`;
/** where uploads of earlier versions wrote every chunk, at its offset of one blob */
export const legacyUploadDataKey = (id: string) => `${uploadPrefix(id)}/data`;

/** CONTRACT.md section 4: the limits every upload answers with */
export const CHUNK_MIN = 2500;
export const CHUNK_MAX = 500_000_000;
/** the view's `size` when no chunk size was declared and no chunk arrived (Irys' default chunk size) */
export const DEFAULT_VIEW_CHUNK_SIZE = 25_000_000;
