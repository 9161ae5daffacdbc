import type { AddressInfo, Server } from 'node:net';
import { TransactionalStorage } from './mongoStandInStorage.js';
import { withTransactions } from './mongoStandInTransactions.js';
// the CongoDB part only: the package's main entry also loads mongodb-memory-server, which is not used here
import type { MemoryStorageAdapter } from '@push.rocks/smartmongo/dist_ts/congodb/index.js';
import {
  CommandRouter,
  CongoServer,
  Long,
  plugins,
  QueryEngine,
  UpdateEngine,
  type Document,
  type ICommandHandler,
  type ICursorState,
  type IHandlerContext,
  type IStoredDocument,
} from '@push.rocks/smartmongo/dist_ts/congodb/index.js';

/**
 * A MongoDB stand-in for the default test run: CongoDB (from `@push.rocks/smartmongo`, a devDependency),
 * a MongoDB wire-protocol server in pure TypeScript that keeps its data in memory. No real mongod can
 * run on the machines the tests run on, and without a server the MongoDB adapters would run in no
 * default test at all.
 *
 * What it proves, and what it cannot: it runs the adapters' real queries, updates, BSON types, indexes
 * and leases through the real driver over the wire, and their transactions under MongoDB's rules (see
 * transactions below): isolated until commit, dropped on abort, first writer wins with a WriteConflict
 * the driver retries. It is one process with its data in memory, so nothing here steps down, fails over,
 * loses a commit or answers a commit's outcome as unknown: durability and failover are proved only by
 * the suites on a real replica set (MONGO_URL, `.github/workflows/contract-suites.yml`), as is anything
 * the stand-in does not model (locks beyond one document's, commands not allowed in a transaction,
 * transactions too large for the cache).
 *
 * What it lacks that the adapters need is patched here, in test code only:
 * - string `_id`s: its memory storage turns every `_id` into an ObjectId (`new ObjectId('items/a')`
 *   throws), and keys its documents by the ObjectId's hex. `TransactionalStorage` (mongoStandInStorage.ts)
 *   keys them by the `_id`'s type and value instead, and keeps the `_id` as it came.
 * - a replica set: it answers `hello` as a standalone server, and the driver refuses to start a
 *   transaction on one. `asReplicaSetMember` adds what a one-member replica set's primary answers
 *   (`setName`, `hosts`, `primary`, `me`), and leaves out its `topologyVersion`: with one the driver
 *   monitors the server by streaming `hello` (moreToCome), which the stand-in does not do; without,
 *   the driver polls.
 * - duplicate keys: it answers them with code 1, where MongoDB says 11000 (DuplicateKey), which the
 *   adapters' leases and upserts rely on. `TransactionalStorage` throws them with 11000.
 * - update pipelines: it refuses an update given as a pipeline (the GridFS store numbers a cut and
 *   appends it to the key's cuts in one). `withPipelineUpdates` runs such an update as an aggregation
 *   pipeline over the document, with the stand-in's own query library (mingo; `$$NOW`: the run's time).
 * - string order: it sorts strings (and compares them for `$min`, `$max` and `$push` with `$sort`) with
 *   `localeCompare`, which puts 'bT…' before 'On…'; MongoDB's default (simple) collation compares
 *   their UTF-8 bytes, so 'On…' comes first (server `src/mongo/bson/bsonelement.cpp`, `compareElements`,
 *   String case: a memcmp of the bytes). A scan for one upload's chunks by `_id` range read another
 *   upload's chunk first and stopped. `withBinaryStringOrder` compares strings by their bytes.
 * - batches of at most 16 MiB: it answers a find or getMore with as many documents as the batch size
 *   says (101 by default), whatever their size, and a reply over BSON's 16 MiB fails (GridFS chunks are
 *   up to 1 MiB each). `withinBatchLimit` keeps what does not fit for the next getMore, as MongoDB does.
 * - transactions: it accepts `startTransaction`, `commitTransaction` and `abortTransaction` and applies
 *   each write at once, so a transaction's writes were seen before their commit, kept after an abort,
 *   and two transactions writing the same document both went through (racing commits lost updates).
 *   `TransactionalStorage` runs every write in a unit of work (a transaction, or one write command) kept
 *   apart until it commits, reading a snapshot; `withTransactions` (mongoStandInTransactions.ts) runs
 *   the commands as the server does: a conflicting statement aborts its transaction with WriteConflict
 *   (112, TransientTransactionError), a conflicting write outside a transaction waits for it to end.
 */
export interface MongoStandIn {
  /** a connection string for the driver: a one-member replica set, connected to directly */
  url: string;
  stop(): Promise<void>;
}

export const standInReplicaSet = 'rs0';

export async function startMongoStandIn(): Promise<MongoStandIn> {
  withPipelineUpdates();
  withBinaryStringOrder();
  const server = new CongoServer({ host: '127.0.0.1', port: 0 });
  const storage = new TransactionalStorage();
  const internals = server as unknown as CongoInternals;
  internals.storage = storage;
  internals.commandRouter = new CommandRouter(storage, server);
  await server.start();
  // it asks for port 0 and keeps reporting 0: the port the system chose is on the listening socket
  const { port } = internals.server!.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  asReplicaSetMember(internals.commandRouter, host);
  withinBatchLimit(internals.commandRouter);
  // last: it wraps every command, the ones patched above included
  withTransactions(internals.commandRouter, storage);
  return {
    url: `mongodb://${host}/?replicaSet=${standInReplicaSet}&directConnection=true`,
    stop: () => server.stop(),
  };
}

/** the parts of CongoServer and CommandRouter the patches replace (private in its types) */
interface CongoInternals {
  storage: MemoryStorageAdapter;
  commandRouter: CommandRouter;
  server: Server | null;
}
interface RouterInternals {
  handlers: Map<string, ICommandHandler>;
  cursors: Map<bigint, ICursorState>;
  cursorIdCounter: bigint;
}

/** Makes `hello` (and its old names) answer as the primary of a one-member replica set at `host`. */
function asReplicaSetMember(router: CommandRouter, host: string): void {
  const handlers = (router as unknown as RouterInternals).handlers;
  const standalone = handlers.get('hello')!;
  const primary: ICommandHandler = {
    handle: async (context: IHandlerContext) => ({
      ...withoutTopologyVersion(await standalone.handle(context)),
      setName: standInReplicaSet,
      setVersion: 1,
      hosts: [host],
      primary: host,
      me: host,
      secondary: false,
    }),
  };
  for (const name of ['hello', 'ismaster', 'isMaster']) handlers.set(name, primary);
}

/** the stand-in's update engine, as it came: every stand-in shares it (it is static) */
const operatorUpdate = UpdateEngine.applyUpdate.bind(UpdateEngine);

/** Makes the update engine run an update given as a pipeline (see above), and the others as before. */
function withPipelineUpdates(): void {
  UpdateEngine.applyUpdate = (document, update, arrayFilters) => {
    if (!Array.isArray(update)) return operatorUpdate(document, update, arrayFilters);
    // on a copy: the query library changes nested values in place, and the document may be one a
    // transaction's snapshot or another reader still holds
    const [updated] = new plugins.mingo.Aggregator(update).run([(UpdateEngine as unknown as Cloning).deepClone(document)]);
    return updated as IStoredDocument;
  };
}

type Cloning = { deepClone<T>(value: T): T };

/** MongoDB's order of two strings under the simple collation: their UTF-8 bytes, compared as unsigned */
export const binaryStringOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** the engines' comparisons (private statics in their types), as they came: every stand-in shares them */
type Comparing = { compareValues(a: unknown, b: unknown): number };
const comparing = [QueryEngine, UpdateEngine] as unknown as Comparing[];
const originalCompare = comparing.map((engine) => engine.compareValues.bind(engine));

/** Makes the query and update engines order strings by their bytes (see above), other values as before. */
function withBinaryStringOrder(): void {
  comparing.forEach((engine, i) => {
    engine.compareValues = (a, b) => (typeof a === 'string' && typeof b === 'string' ? binaryStringOrder(a, b) : originalCompare[i]!(a, b));
  });
}

/** what MongoDB puts in one batch at most: the documents of a 16 MiB reply, less room for its envelope */
const batchBytes = 16 * 1024 * 1024 - 16 * 1024;

/** Makes `find` and `getMore` answer at most `batchBytes` of documents, keeping the rest in the cursor. */
function withinBatchLimit(router: CommandRouter): void {
  const internals = router as unknown as RouterInternals;
  const unlimited = internals.handlers.get('find')!;
  const limited: ICommandHandler = {
    handle: async (context: IHandlerContext) => {
      const answer = await unlimited.handle(context);
      const cursor = answer.cursor as { id: Long; ns: string; firstBatch?: Document[]; nextBatch?: Document[] } | undefined;
      const batch = cursor?.firstBatch ?? cursor?.nextBatch;
      if (!cursor || !batch) return answer;
      const fits = fittingPrefix(batch);
      if (fits === batch.length) return answer;
      const rest = batch.slice(fits);
      batch.length = fits;
      const open = internals.cursors.get(cursor.id.toBigInt());
      if (open) {
        open.documents = [...rest, ...open.documents.slice(open.position)];
        open.position = 0;
      } else {
        // the stand-in closed the cursor, having answered everything: it goes on with what did not fit
        const id = internals.cursorIdCounter++;
        const dot = cursor.ns.indexOf('.');
        internals.cursors.set(id, {
          id,
          database: cursor.ns.slice(0, dot),
          collection: cursor.ns.slice(dot + 1),
          documents: rest,
          position: 0,
          batchSize: Number(context.command.batchSize) || 101,
          createdAt: new Date(),
        });
        cursor.id = Long.fromBigInt(id);
      }
      return answer;
    },
  };
  internals.handlers.set('find', limited);
  internals.handlers.set('getMore', limited);
}

/** how many of the batch's first documents fit in `batchBytes` (at least one, as in MongoDB) */
function fittingPrefix(batch: Document[]): number {
  let bytes = 0;
  for (let i = 0; i < batch.length; i++) {
    bytes += plugins.bson.calculateObjectSize(batch[i]!);
    if (bytes > batchBytes) return Math.max(i, 1);
  }
  return batch.length;
}

function withoutTopologyVersion({ topologyVersion: _, ...answer }: Document): Document {
  return answer;
}
