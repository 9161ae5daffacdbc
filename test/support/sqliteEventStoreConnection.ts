import type Database from 'better-sqlite3';
import { openSqliteEventStore, type SqliteEventStore, type SqliteEventStoreOptions } from '../../src/adapters/sqlite/eventStore.js';

/**
 * TEST SCAFFOLDING (test code only): the SQLite event store and its connection on this thread, as a
 * test uses it to make the file full (`max_page_count`) or read-only (`query_only`) while the store is
 * in use. The same connection, except that a pragma assignment made through it (`db.pragma('x = y')`,
 * then or later) is made by the store on every connection it has (SqliteEventStore.pragma): the
 * writer's too, which would otherwise not see it (pragmas are per connection).
 */
export function openSqliteEventStoreWithConnection(options: SqliteEventStoreOptions): { store: SqliteEventStore; db: Database.Database } {
  let connection: Database.Database | undefined;
  const store = openSqliteEventStore({
    ...options,
    onOpen: (db) => {
      connection = db;
      options.onOpen?.(db);
    },
  });
  return { store, db: mirroringPragmas(connection!, store) };
}

function mirroringPragmas(db: Database.Database, store: SqliteEventStore): Database.Database {
  return new Proxy(db, {
    get(target, key) {
      if (key === 'pragma') {
        return (source: string, options?: Database.PragmaOptions): unknown => (source.includes('=') ? store.pragma(source) : target.pragma(source, options));
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
