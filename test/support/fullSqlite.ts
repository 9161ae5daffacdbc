import type Database from 'better-sqlite3';

/** the largest page count SQLite allows: no limit */
export const NO_PAGE_LIMIT = 1073741823;

/**
 * Fills a SQLite file for good: it may not grow past its pages, and every free page is taken by rows
 * of a page each (a table of the test's own), so the next write that needs a page fails with SQLITE_FULL.
 */
export function fillSqlite(db: Database.Database): void {
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  db.exec('CREATE TABLE IF NOT EXISTS test_filler (padding BLOB NOT NULL)');
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const insert = db.prepare('INSERT INTO test_filler (padding) VALUES (zeroblob(?))');
  for (;;) {
    try {
      insert.run(pageSize);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_FULL') return;
      throw error;
    }
  }
}
