/**
 * Every error the EventStoreDB client raises, made the way the client makes it (a gRPC
 * ServiceError through the client's own `convertToCommandError`, or its `from...` factories), and
 * the port error the adapter turns it into: definite or unknown for an append, unavailable or
 * refused for a read.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { convertToCommandError, MaxAppendSizeExceededError, StreamDeletedError, UnsupportedError, WrongExpectedVersionError } from '@eventstore/db-client';
import { expect } from 'chai';
import { toAppendError, toPortError } from '../../src/adapters/esdb/errors.js';
import { AppendOutcomeUnknown, EventStoreRefused, EventStoreUnavailable, streamName, WrongExpectedRevision } from '../../src/ports/eventStore.js';

const stream = streamName('dataItem-x');

/** a gRPC ServiceError as @grpc/grpc-js hands it to the client */
function serviceError(code: status, details: string, metadata: Record<string, string> = {}): Error {
  const m = new Metadata();
  for (const [k, v] of Object.entries(metadata)) m.set(k, v);
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: m });
}
const fromServer = (code: status, details: string, metadata?: Record<string, string>) => convertToCommandError(serviceError(code, details, metadata));
const exception = (type: string, extra: Record<string, string> = {}) => fromServer(status.UNKNOWN, type, { exception: type, ...extra });

/** what an error is, by the port's brand checks (the most specific first) */
const portKind = (e: unknown) =>
  WrongExpectedRevision.is(e)
    ? 'WrongExpectedRevision'
    : AppendOutcomeUnknown.is(e)
      ? 'AppendOutcomeUnknown'
      : EventStoreUnavailable.is(e)
        ? 'EventStoreUnavailable'
        : EventStoreRefused.is(e)
          ? `EventStoreRefused(${e.reason})`
          : 'unmapped';

describe('EventStoreDB client errors mapped to the port', () => {
  const cases: [string, () => unknown, string, string][] = [
    // [client error, how the client makes it, from an append, from a read]
    ['DeadlineExceededError', () => fromServer(status.DEADLINE_EXCEEDED, 'Deadline exceeded'), 'AppendOutcomeUnknown', 'EventStoreUnavailable'],
    ['UnavailableError (connection cut mid-call)', () => fromServer(status.UNAVAILABLE, 'Connection dropped'), 'AppendOutcomeUnknown', 'EventStoreUnavailable'],
    [
      'UnavailableError (connection refused: never sent)',
      () => fromServer(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1'),
      'EventStoreUnavailable',
      'EventStoreUnavailable',
    ],
    ['CancelledError (by the server)', () => fromServer(status.CANCELLED, 'Cancelled by server'), 'AppendOutcomeUnknown', 'EventStoreUnavailable'],
    [
      'a client-side cancellation (raw ServiceError)',
      () => fromServer(status.CANCELLED, 'Cancelled on client'),
      'AppendOutcomeUnknown',
      'EventStoreUnavailable',
    ],
    ['TimeoutError (ABORTED)', () => fromServer(status.ABORTED, 'Operation timed out'), 'AppendOutcomeUnknown', 'EventStoreUnavailable'],
    ['UnknownError', () => fromServer(status.INTERNAL, 'something broke'), 'AppendOutcomeUnknown', 'EventStoreUnavailable'],
    ['a plain Error from the call', () => new Error('write after end'), 'AppendOutcomeUnknown', 'unmapped'],
    ['discovery giving up', () => new Error('Failed to discover after 10 attempts.'), 'EventStoreUnavailable', 'EventStoreUnavailable'],
    [
      'NotLeaderError',
      () => exception('not-leader', { 'leader-endpoint-host': '10.0.0.2', 'leader-endpoint-port': '2113' }),
      'EventStoreUnavailable',
      'EventStoreUnavailable',
    ],
    [
      'WrongExpectedVersionError',
      () => exception('wrong-expected-version', { 'stream-name': stream, 'expected-version': '-1', 'actual-version': '0' }),
      'WrongExpectedRevision',
      'EventStoreRefused(invalid-request)',
    ],
    [
      'WrongExpectedVersionError (from an append answer)',
      () => new WrongExpectedVersionError(undefined, { streamName: stream, expected: 'no_stream', current: 3n }),
      'WrongExpectedRevision',
      'EventStoreRefused(invalid-request)',
    ],
    [
      'MaxAppendSizeExceededError',
      () => MaxAppendSizeExceededError.fromMaxAppendSize(1_048_576),
      'EventStoreRefused(too-large)',
      'EventStoreRefused(too-large)',
    ],
    [
      'MaxAppendSizeExceededError (from the server)',
      () => exception('maximum-append-size-exceeded', { 'maximum-append-size': '1048576' }),
      'EventStoreRefused(too-large)',
      'EventStoreRefused(too-large)',
    ],
    ['StreamDeletedError', () => StreamDeletedError.fromStreamName(stream), 'EventStoreRefused(stream-deleted)', 'EventStoreRefused(stream-deleted)'],
    ['AccessDeniedError', () => exception('access-denied'), 'EventStoreRefused(access-denied)', 'EventStoreRefused(access-denied)'],
    [
      'AccessDeniedError (UNAUTHENTICATED)',
      () => fromServer(status.UNAUTHENTICATED, 'bad credentials'),
      'EventStoreRefused(access-denied)',
      'EventStoreRefused(access-denied)',
    ],
    ['InvalidTransactionError', () => exception('invalid-transaction'), 'EventStoreRefused(invalid-request)', 'EventStoreRefused(invalid-request)'],
    [
      'RequiredMetadataPropertyMissingError',
      () => exception('missing-required-metadata-property', { 'required-metadata-properties': 'a,b' }),
      'EventStoreRefused(invalid-request)',
      'EventStoreRefused(invalid-request)',
    ],
    ['UnsupportedError', () => new UnsupportedError('batch append', '21.10'), 'EventStoreRefused(invalid-request)', 'EventStoreRefused(invalid-request)'],
    ['NotFoundError', () => fromServer(status.NOT_FOUND, 'not found'), 'EventStoreRefused(invalid-request)', 'EventStoreRefused(invalid-request)'],
  ];

  for (const [name, make, fromAppend, fromRead] of cases) {
    it(`${name}: from an append ${fromAppend}, from a read ${fromRead}`, () => {
      expect(portKind(toAppendError(make(), stream, 'no_stream'))).to.equal(fromAppend);
      expect(portKind(toPortError(make()))).to.equal(fromRead);
    });
  }

  it('states the actual revision of a conflict', () => {
    const conflict = toAppendError(new WrongExpectedVersionError(undefined, { streamName: stream, expected: 'no_stream', current: 3n }), stream, 'no_stream');
    expect(conflict).to.include({ stream, expected: 'no_stream', actual: 3n });
  });

  it("leaves an error that is not the store's (a bug) unchanged when it comes from a read", () => {
    const bug = new TypeError('x is undefined');
    expect(toPortError(bug)).to.equal(bug);
  });

  it('keeps an unknown append an EventStoreUnavailable too, so the request still answers 503', () => {
    const unknown = toAppendError(fromServer(status.DEADLINE_EXCEEDED, 'Deadline exceeded'), stream, 'no_stream');
    expect(EventStoreUnavailable.is(unknown)).to.equal(true);
    expect(unknown).to.be.instanceOf(AppendOutcomeUnknown);
  });
});
