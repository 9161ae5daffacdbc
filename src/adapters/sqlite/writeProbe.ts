import type Database from 'better-sqlite3';

/**
 * Readiness's write into `write_probe` (a table no reader reads): one write transaction that inserts
 * a row of a page's size and deletes it again. The row takes a page of its own, so when the file can
 * neither reuse a free page nor grow (the disk or `max_page_count` is full) the probe fails as an
 * append would; its commit writes and syncs the log as an append's does. Returns the probe to run.
 */
export function writeProbe(db: Database.Database): () => void {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const insert = db.prepare('INSERT OR REPLACE INTO write_probe (id, padding) VALUES (1, zeroblob(?))');
  const remove = db.prepare('DELETE FROM write_probe');
  const probe = db.transaction(() => {
    insert.run(pageSize);
    remove.run();
  });
  // IMMEDIATE: takes the write lock at BEGIN, as the stores' own writes do
  return () => probe.immediate();
}
