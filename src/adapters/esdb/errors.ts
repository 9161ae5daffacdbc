/**
 * Translation of the EventStoreDB client's errors into the port's (src/ports/eventStore.ts), one
 * table for every error the client raises. Errors are recognised by the client's `type` field and
 * gRPC's `code`, never by `instanceof`, so a second copy of the client module changes nothing.
 *
 * An append's failure is either definite (nothing was written: a conflict, a refusal, a follower
 * that does not take writes, a connection never made) or ambiguous (the request may have reached
 * the leader and been written: a deadline, a cut connection, a cancellation, an unexplained
 * failure), which becomes AppendOutcomeUnknown. Any other failure of a read is the store's:
 * EventStoreUnavailable (may be retried) or EventStoreRefused (will not be better next time).
 * Errors that are not the client's (a bug of ours) pass through unchanged, except from an append,
 * whose outcome they leave unknown.
 */
import {
  AppendOutcomeUnknown,
  EventStoreRefused,
  EventStoreUnavailable,
  WrongExpectedRevision,
  type ExpectedRevision,
  type StreamName,
} from '../../ports/eventStore.js';

/** the client's ErrorType values (`@eventstore/db-client` utils/CommandError), as strings */
type ClientErrorType =
  | 'timeout'
  | 'deadline-exceeded'
  | 'unavailable'
  | 'cancelled'
  | 'unknown'
  | 'not-leader'
  | 'stream-not-found'
  | 'no-stream'
  | 'not-found'
  | 'access-denied'
  | 'invalid-argument'
  | 'invalid-transaction'
  | 'stream-deleted'
  | 'scavenge-not-found'
  | 'wrong-expected-version'
  | 'maximum-append-size-exceeded'
  | 'missing-required-metadata-property'
  | 'persistent-subscription-failed'
  | 'persistent-subscription-does-not-exist'
  | 'persistent-subscription-exists'
  | 'persistent-subscription-dropped'
  | 'maximum-subscribers-reached'
  | 'user-not-found'
  | 'user-conflict'
  | 'unsupported';

/** what a failure says about the store: `unknown` only for appends (it may have been written) */
type Kind = 'unavailable' | 'unknown' | 'conflict' | EventStoreRefused['reason'];

/** per client error: what it means for an append (the kind a read gets is the same, `unknown` read as `unavailable`) */
const kindOfClientError: Record<ClientErrorType, Kind> = {
  // the call gave up or was cut after it may have reached the leader
  timeout: 'unknown',
  'deadline-exceeded': 'unknown',
  cancelled: 'unknown',
  unknown: 'unknown',
  // the connection failed: before sending (refused, no leader found) it is definite, see below
  unavailable: 'unknown',
  // a follower refuses a write before writing anything
  'not-leader': 'unavailable',
  'wrong-expected-version': 'conflict',
  'maximum-append-size-exceeded': 'too-large',
  'stream-deleted': 'stream-deleted',
  'access-denied': 'access-denied',
  'invalid-argument': 'invalid-request',
  'invalid-transaction': 'invalid-request',
  'missing-required-metadata-property': 'invalid-request',
  unsupported: 'invalid-request',
  // answers to calls this adapter does not make (or handles before mapping: a stream not found is read as empty)
  'stream-not-found': 'invalid-request',
  'no-stream': 'invalid-request',
  'not-found': 'invalid-request',
  'scavenge-not-found': 'invalid-request',
  'persistent-subscription-failed': 'invalid-request',
  'persistent-subscription-does-not-exist': 'invalid-request',
  'persistent-subscription-exists': 'invalid-request',
  'persistent-subscription-dropped': 'invalid-request',
  'maximum-subscribers-reached': 'invalid-request',
  'user-not-found': 'invalid-request',
  'user-conflict': 'invalid-request',
};

/** gRPC status codes of a raw ServiceError: CANCELLED 1, DEADLINE_EXCEEDED 4, ABORTED 10, UNAVAILABLE 14 */
const kindOfGrpcCode = new Map<number, Kind>([
  [1, 'unknown'],
  [4, 'unknown'],
  [10, 'unknown'],
  [14, 'unknown'],
]);

/** The request never left: no connection was made, no leader was found (discovery gives up with a plain Error). */
const neverSent = (message: string) => /Failed to discover|ECONNREFUSED|No connection established|ENOTFOUND/.test(message);

const clientTypeOf = (error: unknown): ClientErrorType | undefined => {
  const type = (error as { type?: unknown } | null)?.type;
  return typeof type === 'string' && Object.hasOwn(kindOfClientError, type) ? (type as ClientErrorType) : undefined;
};

/** What a failure means, or undefined when it is not the store's (a bug of ours). */
function kindOf(error: unknown): Kind | undefined {
  const message = error instanceof Error ? error.message : '';
  const type = clientTypeOf(error);
  if (type !== undefined) {
    const kind = kindOfClientError[type];
    return kind === 'unknown' && type === 'unavailable' && neverSent(message) ? 'unavailable' : kind;
  }
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (neverSent(message)) return 'unavailable';
  return typeof code === 'number' ? kindOfGrpcCode.get(code) : undefined;
}

/** The actual revision as the port states it; older servers send -1 (or its uint64 form) for "no stream". */
function actualRevision(actual: unknown): bigint | 'no_stream' {
  if (typeof actual !== 'bigint') return 'no_stream';
  if (actual < 0n || actual >= 2n ** 63n) return 'no_stream';
  return actual;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function portErrorOf(kind: Kind, error: unknown, forAppend: boolean): Error {
  const message = messageOf(error);
  switch (kind) {
    case 'unknown':
      return forAppend
        ? new AppendOutcomeUnknown(`EventStoreDB did not say whether the append was written: ${message}`, { cause: error })
        : new EventStoreUnavailable(`EventStoreDB is unavailable: ${message}`, { cause: error });
    case 'unavailable':
      return new EventStoreUnavailable(`EventStoreDB is unavailable: ${message}`, { cause: error });
    case 'conflict':
      // only an append conflicts; anywhere else the store refused a request it should not have had
      return new EventStoreRefused('invalid-request', `EventStoreDB refused the request: ${message}`, { cause: error });
    default:
      return new EventStoreRefused(kind, `EventStoreDB refused the request (${kind}): ${message}`, { cause: error });
  }
}

/** The port's error for a failed read or subscription. */
export function toPortError(error: unknown): unknown {
  const kind = kindOf(error);
  return kind === undefined ? error : portErrorOf(kind, error, false);
}

/** The port's error for a failed append: definite, or AppendOutcomeUnknown (never a raw error). */
export function toAppendError(error: unknown, stream: StreamName, expected: ExpectedRevision): Error {
  const kind = kindOf(error) ?? 'unknown';
  if (kind === 'conflict') {
    return new WrongExpectedRevision(stream, expected, actualRevision((error as { actualVersion?: unknown }).actualVersion));
  }
  return portErrorOf(kind, error, true);
}
