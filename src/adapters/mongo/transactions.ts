import type { ClientSession, MongoClient } from 'mongodb';
import { isDuplicateKey } from './errors.js';

/** a commit racing another writer's insert of the same new document runs again (it then sees it) */
const ATTEMPTS = 3;

/**
 * `work` in a transaction, run again by the driver on transient errors (write conflicts with a
 * concurrent commit or promote) and here on a duplicate key (two transactions inserting the same new
 * document or catalog entry): `work` must start from scratch each time. What `work` throws itself
 * (CheckpointConflict) aborts the transaction and comes out unchanged.
 */
export async function inTransaction<T>(client: MongoClient, work: (session: ClientSession) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.withSession((session) => session.withTransaction(() => work(session)));
    } catch (error) {
      if (!isDuplicateKey(error) || attempt >= ATTEMPTS) throw error;
    }
  }
}
