import { join } from 'node:path';
import type { Config } from '../config.js';
import type { EventStore } from '../ports/eventStore.js';
import { openSqliteEventStore } from './sqlite/eventStore.js';

/**
 * The configured event store, opened the same way by the service and by the operator CLIs, so a CLI
 * writes to exactly the store the running service reads (for SQLite: `<DATA_DIR>/events.db`, which
 * several processes may share). The data directory must exist. The EventStoreDB client (gRPC,
 * protobuf: about 16 MiB resident) is loaded only when it is the configured store. The service
 * gives `appendsComing` (its receipts being signed), for SQLite's commit delay (EVENT_GROUP_WAIT_MS).
 */
export async function openEventStoreFromConfig(
  config: Pick<Config, 'eventStore' | 'eventStoreUrl' | 'dataDir'> & Partial<Pick<Config, 'eventGroupWaitMs'>>,
  appendsComing?: () => number,
): Promise<EventStore> {
  if (config.eventStore === 'esdb') {
    const { createEsdbEventStore, esdbClientFromConnectionString } = await import('./esdb/eventStore.js');
    return createEsdbEventStore(esdbClientFromConnectionString(config.eventStoreUrl!));
  }
  const wait = config.eventGroupWaitMs ?? 0;
  return openSqliteEventStore({
    path: join(config.dataDir, 'events.db'),
    groupWait: wait > 0 && appendsComing !== undefined ? { ms: wait, appendsComing } : undefined,
  });
}
