/**
 * TEST CODE ONLY. Streams.Read of the EventStoreDB gRPC test double: reads of one stream and of
 * `$all`, forwards and backwards, and catch-up subscriptions to `$all` (confirmation, past events,
 * caught-up, then live). Built on the client's own generated messages.
 *
 * Position rules copied from the server: reading `$all` forwards from a position includes the event
 * at it, backwards excludes it, and a subscription starts strictly after it. Backpressure is ignored.
 *
 * Filtered `$all` subscriptions get checkpoints, as from the server's
 * src/EventStore.Core/Services/Transport/Enumerators/Enumerator.AllSubscriptionFiltered.cs (v24.10.4):
 * the interval is checkpointIntervalMultiplier × the search window (`max`, or 32 events, the
 * enumerator's ReadBatchSize, when the client asks for `count`); while catching up, one checkpoint
 * each time that many events were considered (matching the filter or not) and one at the end of the
 * catch-up, before "caught up"; live, one at the event that completes each interval
 * (src/EventStore.Core/Services/SubscriptionsService.cs, CheckpointReached). Unfiltered
 * subscriptions get none. A follower answers `requires-leader` reads as it does writes.
 */
import { randomUUID } from 'node:crypto';
import { status, type ServerWritableStream } from '@grpc/grpc-js';
// Default imports: google-protobuf's generated modules hide their exports from Node's ESM named imports.
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as Shared from '@eventstore/db-client/generated/shared_pb.js';
import type * as Streams from '@eventstore/db-client/generated/streams_pb.js';
import { notLeaderError, type AppendRules } from './esdbTestDoubleAppend.js';
import type { InMemoryLog, StoredEvent } from './esdbTestDoubleLog.js';

type ReadCall = ServerWritableStream<Streams.ReadReq, Streams.ReadResp>;
type Options = Streams.ReadReq.Options;

const utf8 = (bytes: Uint8Array | string) => (typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'));

function streamIdentifier(name: string): Shared.StreamIdentifier {
  return new sharedPb.StreamIdentifier().setStreamName(Buffer.from(name, 'utf8'));
}

function eventMessage(e: StoredEvent): Streams.ReadResp {
  const record = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
    .setId(new sharedPb.UUID().setString(e.id))
    .setStreamIdentifier(streamIdentifier(e.stream))
    .setStreamRevision(e.revision.toString())
    .setPreparePosition(e.position.toString())
    .setCommitPosition(e.position.toString())
    .setData(e.data)
    .setCustomMetadata(e.customMetadata);
  record.getMetadataMap().set('type', e.type).set('content-type', e.contentType).set('created', e.createdTicks.toString());
  const read = new streamsPb.ReadResp.ReadEvent().setEvent(record).setCommitPosition(e.position.toString());
  return new streamsPb.ReadResp().setEvent(read);
}

/** The filter the client sent (prefixes or regex, on event type or stream name), or none. */
function eventFilter(options: Options): (e: StoredEvent) => boolean {
  const filter = options.getFilter();
  if (!options.hasFilter() || !filter) return () => true;
  const onType = filter.hasEventType();
  const expression = onType ? filter.getEventType() : filter.getStreamIdentifier();
  if (!expression) return () => true;
  const prefixes = expression.getPrefixList();
  const regex = expression.getRegex() ? new RegExp(expression.getRegex()) : undefined;
  return (e) => {
    const subject = onType ? e.type : e.stream;
    if (prefixes.length > 0 && !prefixes.some((p) => subject.startsWith(p))) return false;
    return regex === undefined || regex.test(subject);
  };
}

function writeAll(call: ReadCall, events: StoredEvent[]): void {
  for (const e of events) call.write(eventMessage(e));
}

function readStream(call: ReadCall, log: InMemoryLog, options: Options): void {
  const streamOptions = options.getStream()!;
  const name = utf8(streamOptions.getStreamIdentifier()?.getStreamName() ?? '');
  const events = log.stream(name);
  if (!events) {
    call.write(new streamsPb.ReadResp().setStreamNotFound(new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(streamIdentifier(name))));
    call.end();
    return;
  }
  const count = Number(options.getCount());
  const forwards = options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.FORWARDS;
  let selected: StoredEvent[];
  if (forwards) {
    const from = streamOptions.hasRevision() ? BigInt(streamOptions.getRevision()) : 0n;
    selected = streamOptions.hasEnd() ? [] : events.filter((e) => e.revision >= from);
  } else {
    const from = streamOptions.hasRevision() ? BigInt(streamOptions.getRevision()) : BigInt(events.length);
    selected = events.filter((e) => e.revision <= from).reverse();
  }
  writeAll(call, selected.filter(eventFilter(options)).slice(0, count));
  call.end();
}

function readAll(call: ReadCall, log: InMemoryLog, options: Options): void {
  const allOptions = options.getAll()!;
  const position = allOptions.hasPosition() ? BigInt(allOptions.getPosition()!.getCommitPosition()) : undefined;
  const count = Number(options.getCount());
  const keep = eventFilter(options);
  let selected: StoredEvent[];
  if (options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.FORWARDS) {
    selected = allOptions.hasEnd() ? [] : log.all.filter((e) => position === undefined || e.position >= position);
  } else {
    const before = allOptions.hasStart() ? [] : log.all.filter((e) => position === undefined || e.position < position);
    selected = before.reverse();
  }
  writeAll(call, selected.filter(keep).slice(0, count));
  call.end();
}

/** Enumerator.ReadBatchSize: the search window when the client asks for `count` */
const defaultSearchWindow = 32;

function checkpointInterval(options: Options): number | undefined {
  const filter = options.getFilter();
  if (!options.hasFilter() || !filter) return undefined;
  const window = filter.hasMax() ? filter.getMax() : defaultSearchWindow;
  return Math.max(1, filter.getCheckpointintervalmultiplier()) * window;
}

function checkpointMessage(position: bigint): Streams.ReadResp {
  const p = position.toString();
  return new streamsPb.ReadResp().setCheckpoint(new streamsPb.ReadResp.Checkpoint().setCommitPosition(p).setPreparePosition(p));
}

function subscribeToAll(call: ReadCall, log: InMemoryLog, options: Options): void {
  const allOptions = options.getAll()!;
  const keep = eventFilter(options);
  const interval = checkpointInterval(options);
  call.write(new streamsPb.ReadResp().setConfirmation(new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID())));
  const after = allOptions.hasPosition() ? BigInt(allOptions.getPosition()!.getCommitPosition()) : undefined;
  const past = allOptions.hasEnd() ? [] : log.all.filter((e) => after === undefined || e.position > after);
  // Catch-up, when there is something to catch up on (MainLoop goes live at once otherwise).
  if (past.length > 0) {
    let checkpoint = after ?? 0n;
    let considered = 0;
    for (const e of past) {
      if (keep(e)) call.write(eventMessage(e));
      checkpoint = e.position;
      considered += 1;
      if (interval !== undefined && considered >= interval) {
        considered %= interval;
        call.write(checkpointMessage(checkpoint));
      }
    }
    // "issue a checkpoint when going live": at the last position the catch-up read
    if (interval !== undefined) call.write(checkpointMessage(checkpoint));
  }
  call.write(new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp()));
  // Registered in the same turn as the catch-up read: no append can fall between the two.
  let considered = 0;
  const stop = log.onAppended((e) => {
    if (keep(e)) call.write(eventMessage(e));
    if (interval === undefined) return;
    considered += 1;
    if (considered >= interval) {
      considered = 0;
      call.write(checkpointMessage(e.position));
    }
  });
  call.on('cancelled', stop);
  call.on('close', stop);
  call.on('error', stop);
}

export function createReadHandler(log: InMemoryLog, rules: Pick<AppendRules, 'leader'>) {
  return (call: ReadCall): void => {
    const options = call.request.getOptions();
    if (!options) return void call.emit('error', { code: status.INVALID_ARGUMENT, details: 'missing options' });
    const refused = notLeaderError(rules, call.metadata);
    if (refused) return void call.emit('error', refused);
    const subscription = options.hasSubscription();
    if (options.hasStream() && !subscription) return readStream(call, log, options);
    if (options.hasAll() && !subscription) return readAll(call, log, options);
    if (options.hasAll()) return subscribeToAll(call, log, options);
    call.emit('error', { code: status.UNIMPLEMENTED, details: 'stream subscriptions are not implemented by the double' });
  };
}
