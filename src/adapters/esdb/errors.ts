/**
 * Translation of the EventStoreDB client's errors into the port's: a concurrency conflict becomes
 * WrongExpectedRevision; anything saying "the server cannot be reached or gave up" becomes
 * EventStoreUnavailable, which callers may retry. Other errors pass through unchanged.
 */
import {
  CancelledError,
  DeadlineExceededError,
  NotLeaderError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  EventStoreUnavailable,
  WrongExpectedRevision,
  type ExpectedRevision,
  type StreamName,
} from '../../ports/eventStore.js';

/** gRPC status codes that mean "not now": UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED (by the server) */
const retryableGrpcCodes = new Set([14, 4, 1]);

export function isUnavailable(error: unknown): boolean {
  if (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof CancelledError ||
    error instanceof TimeoutError ||
    error instanceof NotLeaderError
  ) {
    return true;
  }
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && retryableGrpcCodes.has(code)) return true;
  // Discovery (cluster connection strings) gives up with a plain Error.
  return /Failed to discover|ECONNREFUSED|No connection established/.test(error.message);
}

/** The actual revision as the port states it; older servers send -1 (or its uint64 form) for "no stream". */
function actualRevision(actual: unknown): bigint | 'no_stream' {
  if (typeof actual !== 'bigint') return 'no_stream';
  if (actual < 0n || actual >= 2n ** 63n) return 'no_stream';
  return actual;
}

export function toPortError(error: unknown, stream?: StreamName, expected?: ExpectedRevision): unknown {
  if (error instanceof WrongExpectedVersionError && stream !== undefined && expected !== undefined) {
    return new WrongExpectedRevision(stream, expected, actualRevision(error.actualVersion));
  }
  if (isUnavailable(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return new EventStoreUnavailable(`EventStoreDB is unavailable: ${message}`, { cause: error });
  }
  return error;
}
