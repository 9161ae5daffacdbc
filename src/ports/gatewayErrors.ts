/**
 * The two ways a gateway call fails. A caller retries a `GatewayRequestError` (with backoff) and
 * never a `GatewayRejected`: re-sending what the gateway refused gets the same refusal.
 */
import { portErrorBrand } from './portError.js';

export type GatewayFailureKind =
  /** no HTTP answer: connection refused or reset, name not resolved */
  | 'unreachable'
  /** no complete answer within the call's time limit */
  | 'timeout'
  /** an HTTP status that says "not now": 5xx, 429, or one the call does not expect */
  | 'status'
  /** a success status whose body is not what the call expects, or an answer past the size bound */
  | 'answer';

export interface GatewayFailure {
  kind: GatewayFailureKind;
  /** the HTTP status, for kinds 'status' and 'answer' */
  status?: number;
  /** the system error code (ECONNREFUSED, ENOTFOUND...), for kind 'unreachable' when known */
  code?: string;
}

// Told apart with `X.is(error)`, never `instanceof` (see portError.ts).
const gatewayRequestError = portErrorBrand<GatewayRequestError>('GatewayRequestError');
const gatewayRejected = portErrorBrand<GatewayRejected>('GatewayRejected');

/** The gateway could not be reached or did not answer usefully: worth trying again later. */
export class GatewayRequestError extends Error {
  static is = gatewayRequestError.is;
  override readonly name = 'GatewayRequestError';
  readonly retryable = true;
  readonly kind: GatewayFailureKind;
  readonly status: number | undefined;
  readonly code: string | undefined;

  // 'answer' by default: the callers that existed before kinds did throw it for bodies they cannot read.
  constructor(message: string, failure: GatewayFailure = { kind: 'answer' }) {
    super(message);
    this.kind = failure.kind;
    this.status = failure.status;
    this.code = failure.code;
    gatewayRequestError.mark(this);
  }
}

/**
 * What a refusal is about: `funds` when the paying wallet's balance is below the reward (the
 * service's funding, not the transaction: the same bundle goes through once the wallet is funded),
 * `transaction` for anything else about what was sent.
 */
export type RefusalAbout = 'funds' | 'transaction';

/** The gateway refused what was sent (a 4xx on a post): sending it again will not help. */
export class GatewayRejected extends Error {
  static is = gatewayRejected.is;
  override readonly name = 'GatewayRejected';
  readonly retryable = false;

  constructor(
    message: string,
    readonly status: number,
    /** the gateway's answer, as text: it usually says why (`Bad Request`, `{"error":"invalid_proof"}`) */
    readonly body: string,
    readonly about: RefusalAbout = 'transaction',
  ) {
    super(message);
    gatewayRejected.mark(this);
  }
}
