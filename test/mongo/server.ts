import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startMongoStandIn, type MongoStandIn } from '../support/mongoStandIn.js';

/**
 * The MongoDB the suites run against: a real one when MONGO_URL is set (a replica set, e.g.
 * "mongodb://127.0.0.1:27017/?replicaSet=rs0&directConnection=true", as the workflow of real servers
 * sets it), otherwise the in-memory stand-in (test/support/mongoStandIn.ts) the suites start themselves.
 */
export const realMongoUrl: string | undefined = process.env.MONGO_URL || undefined;

/** for suite titles: which server, and no credentials */
export const mongoTarget = realMongoUrl ? `a real server at ${redacted(realMongoUrl)} (MONGO_URL)` : 'the in-memory stand-in';

/** for test titles: no credentials */
export function redacted(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * A test that needs what only a real server does (named by `missing`): it runs on a real server, and
 * is skipped on the stand-in, its title saying why.
 */
export function itOnRealServer(title: string, missing: string, test: (this: Mocha.Context) => Promise<void>): void {
  if (realMongoUrl) it(title, test);
  // pending, as the EventStoreDB real-server suite is without EVENTSTORE_URL: listed, not run
  else it(`${title}: not run on the stand-in (real servers only: the stand-in ${missing})`);
}

/**
 * The server of a suite and its databases: fresh names (never an existing database), each dropped by
 * the test that made it. Call `start` in a `before` hook (it starts the stand-in when no MONGO_URL is
 * set) and `close` in an `after` hook; nothing connects when a test file is loaded.
 */
export function testDatabases() {
  const run = `ust_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let count = 0;
  let client: MongoClient | undefined;
  let standIn: MongoStandIn | undefined;
  let url: string | undefined = realMongoUrl;
  return {
    start: async (): Promise<void> => {
      if (url) return;
      standIn = await startMongoStandIn();
      url = standIn.url;
    },
    url: (): string => url ?? failNotStarted(),
    client: (): MongoClient => (client ??= new MongoClient(url ?? failNotStarted())),
    fresh: (): string => `${run}_${count++}`,
    drop: async (database: string): Promise<void> => {
      await client?.db(database).dropDatabase();
    },
    close: async (): Promise<void> => {
      await client?.close();
      client = undefined;
      await standIn?.stop();
      standIn = undefined;
      url = realMongoUrl;
    },
  };
}

function failNotStarted(): never {
  throw new Error('testDatabases: start() was not called (in a before hook)');
}
