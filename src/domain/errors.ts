/**
 * Typed errors of the service. Each carries a code; the HTTP status and the exact contract message
 * are chosen in one place (src/http/errors.ts). `detail` is for logs, never for response bodies.
 */
export type ErrorCode =
  | 'INVALID_CONTENT_TYPE'
  | 'INVALID_DATA_ITEM'
  | 'DATA_ITEM_TOO_LARGE'
  | 'INVALID_CHUNK'
  | 'INVALID_CHUNK_SIZE'
  | 'UPLOAD_ALREADY_FINALIZED'
  | 'INSUFFICIENT_BALANCE'
  | 'UPLOAD_NOT_FOUND'
  | 'TX_NOT_FOUND'
  | 'INVALID_TOKEN'
  | 'INVALID_ADDRESS'
  | 'UNAUTHORIZED'
  | 'INVALID_REQUEST'
  | 'TOO_MANY_REQUESTS'
  | 'REQUEST_TIMEOUT'
  | 'METHOD_NOT_ALLOWED'
  | 'SERVICE_UNAVAILABLE'
  | 'ITEM_NOT_FAILED'
  | 'ITEM_DAMAGED'
  | 'FORBIDDEN'
  | 'INVALID_TRANSACTION'
  | 'FIAT_NOT_SUPPORTED'
  | 'QUARANTINED'
  | 'ITEM_POSTED'
  | 'ITEM_NESTED'
  | 'BAD_GATEWAY'
  | 'GATEWAY_TIMEOUT';

export abstract class ServiceError extends Error {
  abstract readonly code: ErrorCode;
  constructor(readonly detail?: string) {
    super(detail);
  }
}

export class InvalidContentType extends ServiceError {
  readonly code = 'INVALID_CONTENT_TYPE';
}
export class InvalidDataItem extends ServiceError {
  readonly code = 'INVALID_DATA_ITEM';
}
export class DataItemTooLarge extends ServiceError {
  readonly code = 'DATA_ITEM_TOO_LARGE';
}
export class InvalidChunk extends ServiceError {
  readonly code = 'INVALID_CHUNK';
}
export class InvalidChunkSize extends ServiceError {
  readonly code = 'INVALID_CHUNK_SIZE';
}
export class UploadAlreadyFinalized extends ServiceError {
  readonly code = 'UPLOAD_ALREADY_FINALIZED';
}
export class InsufficientBalance extends ServiceError {
  readonly code = 'INSUFFICIENT_BALANCE';
}
export class UploadNotFound extends ServiceError {
  readonly code = 'UPLOAD_NOT_FOUND';
}
export class TxNotFound extends ServiceError {
  readonly code = 'TX_NOT_FOUND';
}
export class InvalidToken extends ServiceError {
  readonly code = 'INVALID_TOKEN';
}
/** retryable: the answer's Retry-After is `retryAfterSeconds` when the cause knows it, else a default (src/http/errors.ts) */
export class ServiceUnavailable extends ServiceError {
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(
    detail?: string,
    /** when known, the seconds until the service may take the request: the answer's Retry-After */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}
export class InvalidAddress extends ServiceError {
  readonly code = 'INVALID_ADDRESS';
}
export class Unauthorized extends ServiceError {
  readonly code = 'UNAUTHORIZED';
}
/** a malformed operator request (admin API) */
export class InvalidRequest extends ServiceError {
  readonly code = 'INVALID_REQUEST';
}
/** a client already has the configured number of uploads in flight (src/http/limits.ts) */
export class TooManyRequests extends ServiceError {
  readonly code = 'TOO_MANY_REQUESTS';
  constructor(
    detail?: string,
    /** when known, the seconds until the client may try again: the answer's Retry-After */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}
/** a request body too slow to be a real upload: cut (src/http/bodyRate.ts) */
export class RequestTimeout extends ServiceError {
  readonly code = 'REQUEST_TIMEOUT';
}
/** a method the route does not take (a HEAD of upload creation, which must not create one) */
export class MethodNotAllowed extends ServiceError {
  readonly code = 'METHOD_NOT_ALLOWED';
}
/** an operator asked to requeue an item that is not FAILED (admin API, `npm run requeue`) */
export class ItemNotFailed extends ServiceError {
  readonly code = 'ITEM_NOT_FAILED';
}
/** an operator asked to requeue an item whose stored bytes are damaged: only a new upload of it repairs it */
export class ItemDamaged extends ServiceError {
  readonly code = 'ITEM_DAMAGED';
}
/** the item's owner, or a payer the upload names, is on the operator's block list */
export class Forbidden extends ServiceError {
  readonly code = 'FORBIDDEN';
}
/** a claimed top-up transaction that is not a transfer to this service, unknown, or already claimed */
export class InvalidTransaction extends ServiceError {
  readonly code = 'INVALID_TRANSACTION';
}
/** a price or rate in a fiat currency: this service takes no card payments, so it has none (never a price of 0) */
export class FiatNotSupported extends ServiceError {
  readonly code = 'FIAT_NOT_SUPPORTED';
}
/** the item is held by the operator (quarantined): its bytes and header are not served until it is released */
export class ItemQuarantined extends ServiceError {
  readonly code = 'QUARANTINED';
}
/** an operator asked to hold an item whose bundle is already signed or posted: it is on Arweave (or on its way) */
export class ItemAlreadyPosted extends ServiceError {
  readonly code = 'ITEM_POSTED';
}
/** an operator asked to hold an item nested in another's payload: the root item's bytes carry it, so the root is what is held */
export class ItemNested extends ServiceError {
  readonly code = 'ITEM_NESTED';
}
/** a retired item's bytes: the gateway answered otherwise than with them, or with bytes of another digest */
export class BadGateway extends ServiceError {
  readonly code = 'BAD_GATEWAY';
}
/** a retired item's bytes: the gateway did not begin to serve them in time */
export class GatewayTimeout extends ServiceError {
  readonly code = 'GATEWAY_TIMEOUT';
}
