import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';

/** The MongoDB the real-server suites run against; they report themselves as not run without it. */
export const mongoTestUrl: string | undefined = process.env.MONGO_URL || undefined;

/** the read store needs a replica set (transactions): a one-member one will do */
export const notRunMessage =
  'was not run: MONGO_URL is not set (e.g. MONGO_URL="mongodb://127.0.0.1:27017/?replicaSet=rs0&directConnection=true", a replica set)';

/** for test titles: no credentials */
export const redacted = (url: string): string => url.replace(/\/\/[^@/]*@/, '//***@');

/**
 * Databases of one test run: fresh names (never an existing database), each dropped by the test that
 * made it. One client for the run, made on first use (nothing connects when a test file is loaded).
 */
export function testDatabases(url: string) {
  const run = `ust_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let count = 0;
  let client: MongoClient | undefined;
  return {
    client: (): MongoClient => (client ??= new MongoClient(url)),
    fresh: (): string => `${run}_${count++}`,
    drop: async (database: string): Promise<void> => {
      await client?.db(database).dropDatabase();
    },
    close: async (): Promise<void> => {
      await client?.close();
      client = undefined;
    },
  };
}
