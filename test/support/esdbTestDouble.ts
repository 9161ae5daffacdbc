/**
 * TEST CODE ONLY: an in-memory stand-in for an EventStoreDB node, speaking real gRPC with the
 * client's own generated service definitions, so the EventStoreDB adapter is exercised over the wire
 * without a server (none can be installed on the build machines). It implements what the adapter
 * uses: Streams.Append, Streams.Read (streams, `$all`, `$all` subscriptions) and
 * ServerFeatures.GetSupportedMethods (called by the client before its first append; BatchAppend is
 * not advertised, so the client uses Append). No Gossip: use a single-node `esdb://` connection string.
 *
 *   const node = await startEsdbTestDouble();
 *   const client = EventStoreDBClient.connectionString(node.connectionString);
 */
import { Server, ServerCredentials, status, type sendUnaryData, type ServerReadableStream } from '@grpc/grpc-js';
import serverFeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import serverFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as Streams from '@eventstore/db-client/generated/streams_pb.js';
import { InMemoryLog, type AppendOutcome, type Expected, type ProposedEvent } from './esdbTestDoubleLog.js';
import { createReadHandler } from './esdbTestDoubleRead.js';

export interface EsdbTestDoubleOptions {
  /** answer idempotent appends without a position, as servers before 23.x do (default false) */
  idempotentWritesWithoutPosition?: boolean;
}

export interface EsdbTestDouble {
  port: number;
  /** `esdb://127.0.0.1:<port>?tls=false` */
  connectionString: string;
  log: InMemoryLog;
  /** appends an engine event (type starting with `$`), as the server does on its own */
  appendSystemEvent(type?: string): void;
  stop(): Promise<void>;
}

const emptyBytes = new Uint8Array();

function expectedOf(options: Streams.AppendReq.Options): Expected {
  if (options.hasRevision()) return BigInt(options.getRevision());
  if (options.hasNoStream()) return 'no_stream';
  if (options.hasStreamExists()) return 'stream_exists';
  return 'any';
}

function proposedOf(message: Streams.AppendReq.ProposedMessage): ProposedEvent | string {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  const id = message.getId();
  if (!type || !contentType) return 'required metadata properties missing: type, content-type';
  if (!id?.hasString()) return 'the double only takes string uuids';
  return {
    id: id.getString(),
    type,
    contentType,
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
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

function createAppendHandler(log: InMemoryLog, options: EsdbTestDoubleOptions) {
  return (
    call: ServerReadableStream<Streams.AppendReq, Streams.AppendResp>,
    callback: sendUnaryData<Streams.AppendResp>,
  ): void => {
    let header: Streams.AppendReq.Options | undefined;
    const proposed: ProposedEvent[] = [];
    let invalid: string | undefined;
    call.on('data', (req: Streams.AppendReq) => {
      if (req.hasOptions()) header = req.getOptions();
      else if (req.hasProposedMessage()) {
        const event = proposedOf(req.getProposedMessage()!);
        if (typeof event === 'string') invalid = event;
        else proposed.push(event);
      }
    });
    call.on('end', () => {
      const stream = Buffer.from(header?.getStreamIdentifier()?.getStreamName_asU8() ?? emptyBytes).toString('utf8');
      if (!header || invalid) {
        return callback({ code: status.INVALID_ARGUMENT, details: invalid ?? 'the first message must be options' });
      }
      const expected = expectedOf(header);
      const outcome = log.append(stream, expected, proposed);
      const withPosition = !(outcome.kind === 'idempotent' && options.idempotentWritesWithoutPosition);
      callback(null, appendResponse(outcome, expected, withPosition));
    });
  };
}

function supportedMethods(): serverFeaturesPb.SupportedMethods {
  const method = (service: string, name: string) =>
    new serverFeaturesPb.SupportedMethod().setServiceName(service).setMethodName(name);
  return new serverFeaturesPb.SupportedMethods()
    .setEventStoreServerVersion('0.0.0-test-double')
    .setMethodsList([
      method('event_store.client.streams.streams', 'read'),
      method('event_store.client.streams.streams', 'append'),
      method('event_store.client.server_features.serverfeatures', 'getsupportedmethods'),
    ]);
}

export async function startEsdbTestDouble(options: EsdbTestDoubleOptions = {}): Promise<EsdbTestDouble> {
  const log = new InMemoryLog();
  // A fresh real node already holds engine events; they must never reach the service.
  log.append('$settings', 'any', [systemEvent('$settings')]);
  const server = new Server();
  server.addService(streamsGrpc.StreamsService, {
    read: createReadHandler(log),
    append: createAppendHandler(log, options),
  });
  server.addService(serverFeaturesGrpc.ServerFeaturesService, {
    getSupportedMethods: (_call: unknown, callback: sendUnaryData<serverFeaturesPb.SupportedMethods>) =>
      callback(null, supportedMethods()),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    port,
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    log,
    appendSystemEvent: (type = '$statsCollected') => void log.append('$stats-127.0.0.1:2113', 'any', [systemEvent(type)]),
    // Open subscriptions never end by themselves: shut down without waiting for them.
    stop: async () => server.forceShutdown(),
  };
}

let systemEvents = 0;
function systemEvent(type: string): ProposedEvent {
  systemEvents += 1;
  const id = `00000000-0000-4000-8000-${systemEvents.toString(16).padStart(12, '0')}`;
  return { id, type, contentType: 'application/json', data: Buffer.from('{}'), customMetadata: emptyBytes };
}
