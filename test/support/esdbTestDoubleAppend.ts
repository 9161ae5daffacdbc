/**
 * TEST CODE ONLY. Streams.Append and Streams.BatchAppend of the EventStoreDB gRPC test double, with
 * the answers an EventStoreDB 24.10 node gives (paths below are in github.com/EventStore/EventStore
 * at tag v24.10.4, under src/EventStore.Core/):
 *
 * - size: each event weighs `data + metadata + 2 × type length` (Data/Event.cs, Event.SizeOnDisk; the
 *   type length is in UTF-16 units, .NET's string.Length); an append whose sum exceeds MaxAppendSize
 *   (Configuration/ClusterVNodeOptions.cs, 1_048_576 by default) is refused: Append throws an
 *   RpcException with the `maximum-append-size-exceeded` trailers (RpcExceptions.MaxAppendSizeExceeded),
 *   BatchAppend answers a Status whose details pack `MaximumAppendSizeExceeded`
 *   (Services/Transport/Grpc/Streams.Append.cs, Streams.BatchAppend.cs, Status.cs).
 * - BatchAppend answers per correlation id on one long-lived stream; events may come in several
 *   messages, the last with `is_final` (Streams.BatchAppend.cs). Success carries the last event's
 *   position as commit and prepare (BatchAppendResp.cs, RequestManager/Managers/WriteEvents.cs).
 * - wrong expected version: Append answers a WrongExpectedVersion message, BatchAppend a Status with
 *   code ALREADY_EXISTS packing `WrongExpectedVersion` (Status.cs, WrongExpectedVersion.cs).
 * - deadlines: a BatchAppend whose deadline has passed, or whose request is still incomplete when
 *   min(deadline, WriteTimeoutMs) runs out, is answered `Timeout` (Streams.BatchAppend.cs). A write
 *   the storage writer has not done within WriteTimeoutMs (2 s by default) is answered `Timeout`
 *   too (Append: RpcExceptions.Timeout, status ABORTED), yet still lands when the writer gets to it
 *   (RequestManager/Managers/RequestManagerBase.cs, PrepareTimeout): the client cannot tell whether
 *   it was written. An Append whose gRPC call ended
 *   (its deadline passed) before the writer took it is dropped (Services/Storage/StorageWriterService.cs,
 *   WritePrepares checks the cancellation token).
 * - not leader: on a follower, a request with the `requires-leader: true` header gets an RpcException
 *   NOT_FOUND with `exception: not-leader` and the leader's host and port (RpcExceptions.LeaderInfo,
 *   ServiceBase.GetRequiresLeader); BatchAppend ends the whole stream with it. Without the header,
 *   the follower forwards the write to the leader.
 */
import { Metadata, status, type ServerDuplexStream, type ServerReadableStream, type sendUnaryData } from '@grpc/grpc-js';
import anyPb from 'google-protobuf/google/protobuf/any_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import statusPb from '@eventstore/db-client/generated/status_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as Shared from '@eventstore/db-client/generated/shared_pb.js';
import type * as Streams from '@eventstore/db-client/generated/streams_pb.js';
import type { AppendOutcome, Expected, InMemoryLog, ProposedEvent } from './esdbTestDoubleLog.js';

export interface AppendRules {
  log: InMemoryLog;
  maxAppendSize: number;
  writeTimeoutMs: number;
  idempotentWritesWithoutPosition: boolean;
  /** the leader's endpoint when this node is a follower */
  leader: { host: string; port: number } | undefined;
  writer: StorageWriter;
  /** counts what tests wait on (`append cancelled`) */
  note(what: string): void;
}

/**
 * The storage writer's queue: writes run at once, unless paused (a slow disk, a busy node); then
 * they wait, in order, until resume().
 */
export class StorageWriter {
  private queue: (() => void)[] | undefined;

  pause(): void {
    this.queue ??= [];
  }

  resume(): void {
    const queued = this.queue ?? [];
    this.queue = undefined;
    for (const write of queued) write();
  }

  submit(write: () => void): void {
    if (this.queue) this.queue.push(write);
    else write();
  }
}

const emptyBytes = new Uint8Array();
const utf8 = (bytes: Uint8Array | string) => (typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'));

/** Event.SizeOnDisk: the type counts twice its length in UTF-16 units, as .NET measures strings. */
export const sizeOnDisk = (e: Pick<ProposedEvent, 'type' | 'data' | 'customMetadata'>) => e.data.length + e.customMetadata.length + e.type.length * 2;

type Message = Streams.AppendReq.ProposedMessage | Streams.BatchAppendReq.ProposedMessage;

function proposedOf(message: Message): ProposedEvent | string {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  const id = message.getId();
  if (!type) return "Required Metadata Property 'type' is missing";
  if (!contentType) return "Required Metadata Property 'content-type' is missing";
  if (!id?.hasString()) return 'the double only takes string uuids';
  return {
    id: id.getString(),
    type,
    contentType,
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

function requiresLeader(metadata: Metadata): boolean {
  return metadata.get('requires-leader')[0]?.toString().toLowerCase() === 'true';
}

/** RpcExceptions.LeaderInfo, or undefined when this node may serve the call */
export function notLeaderError(rules: Pick<AppendRules, 'leader'>, metadata: Metadata) {
  if (!rules.leader || !requiresLeader(metadata)) return undefined;
  const trailers = new Metadata();
  trailers.set('exception', 'not-leader');
  trailers.set('leader-endpoint-host', rules.leader.host);
  trailers.set('leader-endpoint-port', String(rules.leader.port));
  return { code: status.NOT_FOUND, details: 'Leader info available', metadata: trailers };
}

function maxAppendSizeExceeded(maxAppendSize: number) {
  const trailers = new Metadata();
  trailers.set('exception', 'maximum-append-size-exceeded');
  trailers.set('maximum-append-size', String(maxAppendSize));
  return { code: status.INVALID_ARGUMENT, details: `Maximum Append Size of ${maxAppendSize} Exceeded.`, metadata: trailers };
}

/** RpcExceptions.Timeout: ABORTED, which the client raises as TimeoutError */
const timeoutError = () => ({ code: status.ABORTED, details: 'Operation timed out: Prepare phase timeout.' });

/** Runs the write on the storage writer; `timedOut` if it has not run within WriteTimeoutMs. */
function write(
  rules: AppendRules,
  stream: string,
  expected: Expected,
  events: ProposedEvent[],
  cancelled: () => boolean,
  answer: (outcome: AppendOutcome | 'timedOut') => void,
): void {
  let answered = false;
  const timer = setTimeout(() => {
    answered = true;
    answer('timedOut');
  }, rules.writeTimeoutMs);
  rules.writer.submit(() => {
    clearTimeout(timer);
    if (cancelled()) return;
    const outcome = rules.log.append(stream, expected, events);
    if (!answered) answer(outcome);
  });
}

function expectedOfAppend(options: Streams.AppendReq.Options): Expected {
  if (options.hasRevision()) return BigInt(options.getRevision());
  if (options.hasNoStream()) return 'no_stream';
  if (options.hasStreamExists()) return 'stream_exists';
  return 'any';
}

function appendResponse(outcome: AppendOutcome, expected: Expected, withPosition: boolean): Streams.AppendResp {
  const Resp = streamsPb.AppendResp;
  if (outcome.kind === 'wrong_expected_version') {
    const wrong = new Resp.WrongExpectedVersion();
    if (outcome.current < 0n) wrong.setCurrentNoStream(new sharedPb.Empty());
    else wrong.setCurrentRevision(outcome.current.toString());
    if (typeof expected === 'bigint') wrong.setExpectedRevision(expected.toString());
    else if (expected === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
    else if (expected === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty());
    else wrong.setExpectedAny(new sharedPb.Empty());
    return new Resp().setWrongExpectedVersion(wrong);
  }
  const success = new Resp.Success();
  if (outcome.lastRevision < 0n) success.setNoStream(new sharedPb.Empty());
  else success.setCurrentRevision(outcome.lastRevision.toString());
  if (outcome.position === undefined || !withPosition) success.setNoPosition(new sharedPb.Empty());
  else {
    const p = outcome.position.toString();
    success.setPosition(new Resp.Position().setCommitPosition(p).setPreparePosition(p));
  }
  return new Resp().setSuccess(success);
}

const withPosition = (rules: AppendRules, outcome: AppendOutcome) => !(outcome.kind === 'idempotent' && rules.idempotentWritesWithoutPosition);

/** Streams.Append.cs */
export function createAppendHandler(rules: AppendRules) {
  return (call: ServerReadableStream<Streams.AppendReq, Streams.AppendResp>, callback: sendUnaryData<Streams.AppendResp>): void => {
    let header: Streams.AppendReq.Options | undefined;
    const proposed: ProposedEvent[] = [];
    let size = 0;
    /** answered, with an error or not */
    let failed = false;
    let ended = false;
    const fail = (error: Parameters<typeof callback>[0]) => {
      if (failed) return;
      failed = true;
      callback(error);
    };
    // Only a call the client ended before the answer (its deadline passed) cancels the write.
    call.on('cancelled', () => {
      if (failed) return;
      ended = true;
      rules.note('append cancelled');
    });
    call.on('data', (req: Streams.AppendReq) => {
      if (failed) return;
      if (req.hasOptions()) return void (header = req.getOptions());
      const event = proposedOf(req.getProposedMessage()!);
      if (typeof event === 'string') return fail({ code: status.INVALID_ARGUMENT, details: event });
      size += sizeOnDisk(event);
      if (size > rules.maxAppendSize) return fail(maxAppendSizeExceeded(rules.maxAppendSize));
      proposed.push(event);
    });
    call.on('end', () => {
      if (failed) return;
      if (!header) return fail({ code: status.INVALID_ARGUMENT, details: 'the first message must be options' });
      // The node that is not the leader answers NotHandled once the write reaches it: after the size checks.
      const refused = notLeaderError(rules, call.metadata);
      if (refused) return fail(refused);
      const stream = utf8(header.getStreamIdentifier()?.getStreamName_asU8() ?? emptyBytes);
      const expected = expectedOfAppend(header);
      write(
        rules,
        stream,
        expected,
        proposed,
        () => ended,
        (outcome) => {
          if (outcome === 'timedOut') return fail(timeoutError());
          failed = true;
          callback(null, appendResponse(outcome, expected, withPosition(rules, outcome)));
        },
      );
    });
  };
}

function packedStatus(code: number, message: string, details: { serializeBinary(): Uint8Array }, typeName: string) {
  const any = new anyPb.Any();
  any.pack(details.serializeBinary(), `event_store.client.${typeName}`);
  return new statusPb.Status().setCode(code).setMessage(message).setDetails(any);
}

function expectedOfBatch(options: Streams.BatchAppendReq.Options): Expected {
  if (options.hasStreamPosition()) return BigInt(options.getStreamPosition());
  if (options.hasNoStream()) return 'no_stream';
  if (options.hasStreamExists()) return 'stream_exists';
  return 'any';
}

/** Status.WrongExpectedVersion with WrongExpectedVersion.Create's fields */
function wrongExpectedVersionStatus(current: bigint, expected: Expected) {
  const details = new sharedPb.WrongExpectedVersion();
  if (current < 0n) details.setCurrentNoStream(new sharedPb.Empty());
  else details.setCurrentStreamRevision(current.toString());
  if (typeof expected === 'bigint') details.setExpectedStreamPosition(expected.toString());
  else if (expected === 'no_stream') details.setExpectedNoStream(new sharedPb.Empty());
  else if (expected === 'stream_exists') details.setExpectedStreamExists(new sharedPb.Empty());
  else details.setExpectedAny(new sharedPb.Empty());
  return packedStatus(status.ALREADY_EXISTS, 'WrongExpectedVersion', details, 'WrongExpectedVersion');
}

const timeoutStatus = () => packedStatus(status.DEADLINE_EXCEEDED, 'Timeout', new sharedPb.Timeout(), 'Timeout');

interface PendingBatch {
  stream: string;
  expected: Expected;
  events: ProposedEvent[];
  size: number;
  timer: NodeJS.Timeout;
}

/** Streams.BatchAppend.cs */
export function createBatchAppendHandler(rules: AppendRules) {
  return (call: ServerDuplexStream<Streams.BatchAppendReq, Streams.BatchAppendResp>): void => {
    const pending = new Map<string, PendingBatch>();
    let closed = false;
    let ending = false;
    let writing = 0;
    const endIfDone = () => {
      if (ending && writing === 0 && !closed) call.end();
    };
    call.on('cancelled', () => void (closed = true));
    call.on('close', () => void (closed = true));

    const answer = (correlationId: Shared.UUID, stream: string, result: Streams.BatchAppendResp.Success | statusPb.Status) => {
      if (closed) return;
      const resp = new streamsPb.BatchAppendResp()
        .setCorrelationId(correlationId)
        .setStreamIdentifier(new sharedPb.StreamIdentifier().setStreamName(Buffer.from(stream, 'utf8')));
      if (result instanceof statusPb.Status) resp.setError(result);
      else resp.setSuccess(result);
      call.write(resp);
    };

    call.on('data', (req: Streams.BatchAppendReq) => {
      const correlationId = req.getCorrelationId()!;
      const key = correlationId.getString();
      const options = req.getOptions();
      if (options) {
        const stream = utf8(options.getStreamIdentifier()?.getStreamName_asU8() ?? emptyBytes);
        // timeout = Min(requested deadline, WriteTimeout); none left: answered Timeout at once.
        const deadline = options.getDeadline()?.toDate().getTime() ?? Number.POSITIVE_INFINITY;
        const timeout = Math.min(deadline - Date.now(), rules.writeTimeoutMs);
        if (timeout <= 0) return answer(correlationId, stream, timeoutStatus());
        if (!pending.has(key)) {
          const timer = setTimeout(() => {
            if (pending.delete(key)) answer(correlationId, stream, timeoutStatus());
          }, timeout);
          pending.set(key, { stream, expected: expectedOfBatch(options), events: [], size: 0, timer });
        }
      }
      const batch = pending.get(key);
      if (!batch) return;
      for (const message of req.getProposedMessagesList()) {
        const event = proposedOf(message);
        if (typeof event === 'string') {
          pending.delete(key);
          clearTimeout(batch.timer);
          const details = new sharedPb.BadRequest().setMessage(event);
          return answer(correlationId, batch.stream, packedStatus(status.INVALID_ARGUMENT, 'BadRequest', details, 'BadRequest'));
        }
        batch.size += sizeOnDisk(event);
        batch.events.push(event);
      }
      if (batch.size > rules.maxAppendSize) {
        pending.delete(key);
        clearTimeout(batch.timer);
        const details = new sharedPb.MaximumAppendSizeExceeded().setMaxappendsize(rules.maxAppendSize);
        const error = packedStatus(status.INVALID_ARGUMENT, 'MaximumAppendSizeExceeded', details, 'MaximumAppendSizeExceeded');
        return answer(correlationId, batch.stream, error);
      }
      if (!req.getIsFinal()) return;
      pending.delete(key);
      clearTimeout(batch.timer);
      // NotHandled(NotLeader) makes ConvertMessage throw LeaderInfo: the whole stream ends with it.
      const refused = notLeaderError(rules, call.metadata);
      if (refused) {
        closed = true;
        return void call.emit('error', refused);
      }
      writing += 1;
      // The write runs on the stream's token, not the batch's deadline: once sent, only WriteTimeout applies.
      write(
        rules,
        batch.stream,
        batch.expected,
        batch.events,
        () => closed,
        (outcome) => {
          writing -= 1;
          setImmediate(endIfDone);
          if (outcome === 'timedOut') return answer(correlationId, batch.stream, timeoutStatus());
          if (outcome.kind === 'wrong_expected_version') {
            return answer(correlationId, batch.stream, wrongExpectedVersionStatus(outcome.current, batch.expected));
          }
          const success = new streamsPb.BatchAppendResp.Success();
          if (outcome.lastRevision < 0n) success.setNoStream(new sharedPb.Empty());
          else success.setCurrentRevision(outcome.lastRevision.toString());
          if (outcome.position === undefined || !withPosition(rules, outcome)) success.setNoPosition(new sharedPb.Empty());
          else {
            const p = outcome.position.toString();
            success.setPosition(new sharedPb.AllStreamPosition().setCommitPosition(p).setPreparePosition(p));
          }
          answer(correlationId, batch.stream, success);
        },
      );
    });
    call.on('end', () => {
      for (const batch of pending.values()) clearTimeout(batch.timer);
      ending = true;
      endIfDone();
    });
  };
}
