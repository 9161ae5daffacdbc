/**
 * TEST CODE ONLY: an in-memory stand-in for an EventStoreDB 24.10 node, speaking real gRPC with the
 * client's own generated service definitions, so the EventStoreDB adapter is exercised over the wire
 * without a server (none can be installed on the build machines). It implements what the adapter
 * uses, with the server's rules (each file names the server source it follows):
 * ServerFeatures.GetSupportedMethods (advertising BatchAppend, which the client then uses for every
 * append), Streams.BatchAppend and Streams.Append (esdbTestDoubleAppend.ts: MaxAppendSize, expected
 * revisions, idempotent retries, deadlines and write timeouts, not-leader answers), Streams.Read
 * (esdbTestDoubleRead.ts: reads, `$all` subscriptions with filter checkpoints), and `$all` positions
 * laid out as transaction-file offsets (esdbTestDoubleLog.ts). It can be stopped and started again
 * on the same port, keeping its log, as a restarted node. No Gossip: use a single-node `esdb://`
 * connection string.
 *
 *   const node = await startEsdbTestDouble();
 *   const client = EventStoreDBClient.connectionString(node.connectionString);
 */
import { Server, ServerCredentials, type sendUnaryData } from '@grpc/grpc-js';
import serverFeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import serverFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import { createAppendHandler, createBatchAppendHandler, StorageWriter, type AppendRules } from './esdbTestDoubleAppend.js';
import { InMemoryLog, type ProposedEvent } from './esdbTestDoubleLog.js';
import { createReadHandler } from './esdbTestDoubleRead.js';

export interface EsdbTestDoubleOptions {
  /** answer idempotent appends without a position, as servers before 23.x do (default false) */
  idempotentWritesWithoutPosition?: boolean;
  /** the node's MaxAppendSize in bytes (default 1_048_576, the server's; it accepts up to 16 MiB) */
  maxAppendSize?: number;
  /** the node's WriteTimeoutMs: a write not done by then is answered Timeout (default 2000) */
  writeTimeoutMs?: number;
  /**
   * 'log' (default): `$all` positions are transaction-file byte offsets, as on a real node;
   * 'counts': 0, 1, 2 ..., for suites that still take positions for event counts
   */
  positions?: 'log' | 'counts';
  /** makes this node a follower of that one: it shares its log and refuses `requires-leader` calls */
  followerOf?: EsdbTestDouble;
  /** advertise BatchAppend (default true, as every server since 21.10); false: the client uses Append */
  batchAppend?: boolean;
}

export interface EsdbTestDouble {
  port: number;
  /** `esdb://127.0.0.1:<port>?tls=false` */
  connectionString: string;
  log: InMemoryLog;
  /** gRPC calls received, by method name (`batchAppend`, `append`, `read`, `getSupportedMethods`),
   * and `append cancelled`: Append calls whose client went away (deadline passed) */
  calls: Record<string, number>;
  /** appends an engine event (type starting with `$`), as the server does on its own */
  appendSystemEvent(type?: string): void;
  /** holds every write until resumeWrites(), as a stalled disk does */
  pauseWrites(): void;
  resumeWrites(): void;
  /** drops every connection and stops listening; the log is kept */
  stop(): Promise<void>;
  /** listens again on the same port with the same log, as a restarted node */
  start(): Promise<void>;
}

/** 1 MiB: ClusterVNodeOptions.MaxAppendSize's default (src/EventStore.Core/Configuration/ClusterVNodeOptions.cs) */
export const defaultMaxAppendSize = 1_048_576;
/** "May not exceed 16MB." (the same option's description) */
const largestMaxAppendSize = 16 * 1024 * 1024;

const emptyBytes = new Uint8Array();

/**
 * ServerFeatures.GetSupportedMethods (src/EventStore.Core/Services/Transport/Grpc/ServerFeatures.cs):
 * every client method the node maps, lower-cased, with the features of Read ("position", "events")
 * and BatchAppend ("deadline_duration").
 */
function supportedMethods(batchAppend: boolean): serverFeaturesPb.SupportedMethods {
  const method = (service: string, name: string, features: string[] = []) =>
    new serverFeaturesPb.SupportedMethod().setServiceName(service).setMethodName(name).setFeaturesList(features);
  const streams = 'event_store.client.streams.streams';
  return new serverFeaturesPb.SupportedMethods()
    .setEventStoreServerVersion('24.10.4')
    .setMethodsList([
      method(streams, 'read', ['position', 'events']),
      method(streams, 'append'),
      ...(batchAppend ? [method(streams, 'batchappend', ['deadline_duration'])] : []),
      method('event_store.client.server_features.serverfeatures', 'getsupportedmethods'),
    ]);
}

export async function startEsdbTestDouble(options: EsdbTestDoubleOptions = {}): Promise<EsdbTestDouble> {
  const maxAppendSize = options.maxAppendSize ?? defaultMaxAppendSize;
  if (maxAppendSize > largestMaxAppendSize) throw new Error(`MaxAppendSize may not exceed ${largestMaxAppendSize}`);
  const leader = options.followerOf;
  // A follower serves the leader's log: replication is not modelled, it is instantaneous.
  const log = leader?.log ?? new InMemoryLog({ positions: options.positions ?? 'log' });
  // A fresh real node already holds engine events; they must never reach the service.
  if (!leader) log.append('$settings', 'any', [systemEvent('$settings')]);
  const calls: Record<string, number> = {};
  const rules: AppendRules = {
    log,
    maxAppendSize,
    writeTimeoutMs: options.writeTimeoutMs ?? 2000,
    idempotentWritesWithoutPosition: options.idempotentWritesWithoutPosition ?? false,
    leader: leader ? { host: '127.0.0.1', port: leader.port } : undefined,
    writer: new StorageWriter(),
    note: (what) => void (calls[what] = (calls[what] ?? 0) + 1),
  };
  const batchAppend = options.batchAppend ?? true;

  const counted =
    <A extends unknown[]>(name: string, handler: (...args: A) => void) =>
    (...args: A) => {
      calls[name] = (calls[name] ?? 0) + 1;
      handler(...args);
    };
  const listen = async (port: number) => {
    // Appends of up to 16 MiB must reach the size rule rather than gRPC's 4 MiB default limit.
    const server = new Server({ 'grpc.max_receive_message_length': largestMaxAppendSize + 1024 * 1024 });
    server.addService(streamsGrpc.StreamsService, {
      read: counted('read', createReadHandler(log, rules)),
      append: counted('append', createAppendHandler(rules)),
      ...(batchAppend ? { batchAppend: counted('batchAppend', createBatchAppendHandler(rules)) } : {}),
    });
    server.addService(serverFeaturesGrpc.ServerFeaturesService, {
      getSupportedMethods: counted('getSupportedMethods', (_call: unknown, callback: sendUnaryData<serverFeaturesPb.SupportedMethods>) =>
        callback(null, supportedMethods(batchAppend)),
      ),
    });
    const bound = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))),
    );
    return { server, bound };
  };

  let current: Server | undefined;
  const first = await listen(0);
  current = first.server;
  const port = first.bound;
  return {
    port,
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    log,
    calls,
    appendSystemEvent: (type = '$statsCollected') => void log.append('$stats-127.0.0.1:2113', 'any', [systemEvent(type)]),
    pauseWrites: () => rules.writer.pause(),
    resumeWrites: () => rules.writer.resume(),
    // Open subscriptions never end by themselves: shut down without waiting for them.
    stop: async () => {
      current?.forceShutdown();
      current = undefined;
    },
    start: async () => {
      if (current) return;
      current = (await listen(port)).server;
    },
  };
}

let systemEvents = 0;
function systemEvent(type: string): ProposedEvent {
  systemEvents += 1;
  const id = `00000000-0000-4000-8000-${systemEvents.toString(16).padStart(12, '0')}`;
  return { id, type, contentType: 'application/json', data: Buffer.from('{}'), customMetadata: emptyBytes };
}
