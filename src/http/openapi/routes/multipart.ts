import { z } from 'zod';
import { CHUNK_MAX, CHUNK_MIN } from '../../../domain/upload/ids.js';
import { defineRoute } from '../route.js';
import { chunkOffsetParam, irysPaidByHeader, paidByHeader, tokenParam, uploadIdParam } from '../params.js';
import { FinalizedUploadBody, UploadCreatedBody, UploadStatusBody, UploadViewBody } from '../bodies.js';

/** The multi-part upload (CONTRACT.md section 4): create, chunks in any order, view, finalize, status. */

const json = (schema: z.ZodType) => ({ contentType: 'application/json', schema });
const tag = 'multi-part uploads';

const create = {
  method: 'get',
  tag,
  summary: 'Create a multi-part upload',
  query: {
    chunkSize: {
      schema: z.int().min(CHUNK_MIN).max(CHUNK_MAX),
      description: 'the chunk size the client will send (echoed); outside [min, max] is `Invalid chunk size`',
    },
  },
  responses: { 200: { description: 'the new upload', content: json(UploadCreatedBody) } },
} as const;

export const createUploadRoute = defineRoute({
  ...create,
  operationId: 'createUpload',
  path: '/chunks/-1/-1',
  description: "Creates an upload paid in arweave (the seed's literal path).",
  errors: ['INVALID_CHUNK_SIZE'],
});

export const createUploadWithTokenRoute = defineRoute({
  ...create,
  operationId: 'createUploadWithToken',
  path: '/chunks/:token/-1/-1',
  description: 'Creates an upload for the token the client names. `-1` is never read as an upload id.',
  params: { token: tokenParam },
  errors: ['INVALID_TOKEN', 'INVALID_CHUNK_SIZE'],
});

const finalized = {
  200: { description: 'finalized: the item id and its receipt (the same body when finalized again)', content: json(FinalizedUploadBody) },
  202: { description: 'another upload already stored the item: its original receipt', reason: 'Data Item Exists', content: json(FinalizedUploadBody) },
};

export const finalizeUploadRoute = defineRoute({
  operationId: 'finalizeUpload',
  method: 'post',
  path: '/chunks/:token/:uploadId/-1',
  tag,
  summary: 'Finalize an upload, waiting for the receipt',
  description: 'Checks that the chunks tile the item, verifies it, charges the payer and accepts it.',
  params: { token: tokenParam, uploadId: uploadIdParam },
  headers: { 'x-paid-by': paidByHeader, 'x-irys-paid-by': irysPaidByHeader },
  responses: finalized,
  errors: ['INVALID_TOKEN', 'UPLOAD_NOT_FOUND', 'INVALID_DATA_ITEM', 'INSUFFICIENT_BALANCE', 'FORBIDDEN'],
});

export const finalizeUploadAsyncRoute = defineRoute({
  operationId: 'finalizeUploadAsync',
  method: 'post',
  path: '/chunks/:token/:uploadId/finalize',
  tag,
  summary: 'Finalize an upload in the background',
  description: 'Answers at once; the status route tells how it went. A restart resumes every unfinished finalization.',
  params: { token: tokenParam, uploadId: uploadIdParam },
  headers: { 'x-paid-by': paidByHeader, 'x-irys-paid-by': irysPaidByHeader },
  responses: {
    200: { description: 'already finalized: the item id and its receipt', content: json(FinalizedUploadBody) },
    202: { description: 'finalization goes on in the background; empty body' },
  },
  errors: ['INVALID_TOKEN', 'UPLOAD_NOT_FOUND', 'FORBIDDEN'],
});

export const uploadChunkRoute = defineRoute({
  operationId: 'uploadChunk',
  method: 'post',
  path: '/chunks/:token/:uploadId/:offset',
  tag,
  summary: 'Store a chunk',
  description:
    'Stores the bytes at `offset` of the signed item. Any order, in parallel; the same offset again replaces the chunk. Once the owner is known, a chunk the payer cannot pay for is refused.',
  params: { token: tokenParam, uploadId: uploadIdParam, offset: chunkOffsetParam },
  headers: {
    'content-length': { schema: z.string().regex(/^\d+$/), description: `the chunk's length: 1 to ${CHUNK_MAX}`, required: true },
    'x-paid-by': paidByHeader,
    'x-irys-paid-by': irysPaidByHeader,
  },
  requestBody: { contentType: 'application/octet-stream', description: 'the chunk bytes', required: true },
  responses: { 200: { description: 'stored; empty body' } },
  errors: ['INVALID_TOKEN', 'UPLOAD_NOT_FOUND', 'INVALID_CHUNK', 'INSUFFICIENT_BALANCE', 'UPLOAD_ALREADY_FINALIZED', 'FORBIDDEN'],
});

export const viewUploadRoute = defineRoute({
  operationId: 'viewUpload',
  method: 'get',
  path: '/chunks/:token/:uploadId/-1',
  tag,
  summary: 'View an upload',
  description: 'The chunks received so far; readable after finalization, not after expiry.',
  params: { token: tokenParam, uploadId: uploadIdParam },
  responses: { 200: { description: 'the upload', content: json(UploadViewBody) } },
  errors: ['INVALID_TOKEN', 'UPLOAD_NOT_FOUND'],
});

export const uploadStatusRoute = defineRoute({
  operationId: 'getUploadStatus',
  method: 'get',
  path: '/chunks/:token/:uploadId/status',
  tag,
  summary: 'Status of an upload',
  description: 'From creation on (never 404 for a known upload); the receipt once FINALIZED.',
  params: { token: tokenParam, uploadId: uploadIdParam },
  responses: { 200: { description: 'the status', content: json(UploadStatusBody) } },
  errors: ['INVALID_TOKEN', 'UPLOAD_NOT_FOUND'],
});
