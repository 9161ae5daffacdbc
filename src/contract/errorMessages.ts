import { match } from 'ts-pattern';
import type { ErrorCode } from '../domain/errors.js';

/**
 * The one place where errors become HTTP statuses and the contract's exact messages (CONTRACT.md):
 * the web layer answers with them (http/errors.ts), the operator CLIs print the same words.
 */
export const httpErrorOf = (code: ErrorCode): [number, string] =>
  match(code)
    .returnType<[number, string]>()
    .with('INVALID_CONTENT_TYPE', () => [400, 'Invalid Content Type'])
    .with('INVALID_DATA_ITEM', () => [400, 'Invalid Data Item'])
    .with('DATA_ITEM_TOO_LARGE', () => [413, 'Data item too large'])
    .with('INVALID_CHUNK', () => [400, 'Invalid chunk'])
    .with('INVALID_CHUNK_SIZE', () => [400, 'Invalid chunk size'])
    .with('UPLOAD_ALREADY_FINALIZED', () => [409, 'Upload already finalized'])
    .with('INSUFFICIENT_BALANCE', () => [402, 'Insufficient balance'])
    .with('UPLOAD_NOT_FOUND', () => [404, 'Multi-part upload not found'])
    .with('TX_NOT_FOUND', () => [404, "TX doesn't exist"])
    .with('INVALID_TOKEN', () => [400, 'Invalid token'])
    .with('SERVICE_UNAVAILABLE', () => [503, 'Service unavailable'])
    .with('INVALID_ADDRESS', () => [400, 'Invalid address'])
    .with('UNAUTHORIZED', () => [401, 'Unauthorized'])
    .with('INVALID_REQUEST', () => [400, 'Invalid request'])
    .with('TOO_MANY_REQUESTS', () => [429, 'Too Many Requests'])
    .with('REQUEST_TIMEOUT', () => [408, 'Request Timeout'])
    .with('METHOD_NOT_ALLOWED', () => [405, 'Method Not Allowed'])
    .with('ITEM_NOT_FAILED', () => [409, 'Data item not failed'])
    .with('ITEM_DAMAGED', () => [409, 'Data item damaged: upload it again'])
    .with('FORBIDDEN', () => [403, 'Forbidden'])
    .with('INVALID_TRANSACTION', () => [400, 'Invalid transaction'])
    .with('FIAT_NOT_SUPPORTED', () => [400, 'Fiat payments not supported'])
    .with('QUARANTINED', () => [451, 'Unavailable For Legal Reasons'])
    .with('ITEM_POSTED', () => [409, 'Data item already posted: it is on Arweave'])
    .with('ITEM_NESTED', () => [409, 'Data item is nested in another: hold its root item'])
    .with('BAD_GATEWAY', () => [502, 'Bad Gateway'])
    .with('GATEWAY_TIMEOUT', () => [504, 'Gateway Timeout'])
    .exhaustive();
