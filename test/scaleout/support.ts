/**
 * The scale-out profile in tests: the whole service with EVENT_STORE=esdb on the gRPC EventStoreDB
 * test double (started here, on 127.0.0.1 port 0), and the read and blob stores of `scaleoutStores()`.
 */
import { startEsdbTestDouble, type EsdbTestDouble, type EsdbTestDoubleOptions } from '../support/esdbTestDouble.js';
import { sizeOnDisk } from '../support/esdbTestDoubleAppend.js';
import type { ProposedEvent } from '../support/esdbTestDoubleLog.js';
import { startTestService, type TestService } from '../support/testService.js';
import { testDatabases } from '../mongo/server.js';

/**
 * The read and blob store settings of the scale-out suites: MongoDB read models and GridFS bytes, on
 * the in-memory MongoDB stand-in (test/support/mongoStandIn.ts; a real server with MONGO_URL), one
 * fresh database per service, shared by every process of a split deployment as replicas share them.
 */
export async function scaleoutStores(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const databases = testDatabases();
  await databases.start();
  const database = databases.fresh();
  return {
    env: { READ_STORE: 'mongo', BLOB_STORE: 'gridfs', MONGO_URL: databases.url(), MONGO_DATABASE: database },
    async close() {
      await databases.drop(database);
      await databases.close();
    },
  };
}

/** What the node was asked to write: the largest single append (in the server's SizeOnDisk bytes). */
export interface AppendFigures {
  appends: number;
  largestAppendBytes: number;
  largestAppendStream: string;
}

export interface ScaleoutNode {
  node: EsdbTestDouble;
  /** the settings of a service (or a script) on this node and `scaleoutStores()` */
  env: Record<string, string>;
  figures: AppendFigures;
  close(): Promise<void>;
}

/** An EventStoreDB test double and the scale-out stores, with the figures of every append it took. */
export async function startScaleoutNode(options: EsdbTestDoubleOptions = {}): Promise<ScaleoutNode> {
  const node = await startEsdbTestDouble(options);
  const stores = await scaleoutStores();
  const figures: AppendFigures = { appends: 0, largestAppendBytes: 0, largestAppendStream: '' };
  // Measured at the log, below gRPC: counts the appends the node wrote, whichever call brought them.
  const append = node.log.append.bind(node.log);
  node.log.append = (stream: string, expected, proposed: ProposedEvent[]) => {
    const bytes = proposed.reduce((sum, e) => sum + sizeOnDisk(e), 0);
    figures.appends += 1;
    if (bytes > figures.largestAppendBytes) Object.assign(figures, { largestAppendBytes: bytes, largestAppendStream: stream });
    return append(stream, expected, proposed);
  };
  return {
    node,
    env: { EVENT_STORE: 'esdb', EVENTSTORE_URL: node.connectionString, ...stores.env },
    figures,
    async close() {
      await stores.close();
      await node.stop();
    },
  };
}

export interface ScaleoutService extends TestService {
  esdb: ScaleoutNode;
}

/** The whole service in-process on the scale-out profile; close() stops the node too. */
export async function startScaleoutService(env: Record<string, string> = {}, options: EsdbTestDoubleOptions = {}): Promise<ScaleoutService> {
  const esdb = await startScaleoutNode(options);
  // every store from the configuration, as `npm start` opens them (port errors are told apart by
  // brand, so the dynamically imported adapters' copies of the port modules are no matter)
  const service = await startTestService({ ...esdb.env, ...env }).catch(async (error: unknown) => {
    await esdb.close();
    throw error;
  });
  return {
    ...service,
    esdb,
    async close() {
      await service.close();
      await esdb.close();
    },
  };
}
