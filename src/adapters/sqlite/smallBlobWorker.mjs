// The small-blob table's writer thread (started by smallBlobTable.ts). Plain JavaScript on purpose,
// as walCheckpointWorker.mjs: it loads without a TypeScript loader. It holds a connection of its own
// to the table's file and writes what the main thread asks, the requests of one turn in one
// transaction (group commit), answering each after COMMIT has returned: with `synchronous = FULL`,
// when the log is on disk. Every write gives the row it leaves a new generation, from a counter in
// the file that never goes back, so a caller can change a row only if it is still the one it saw.
//
// Protocol: { id, op, ... } → { type: 'done', answers: [{ id, value }] } for a group, or
// { type: 'failed', ids, message, code } when its transaction failed (nothing of it written);
// { type: 'close' } → the connection is closed and the thread ends. Ops: put { key, bytes, now } →
// gen; deleteIf { key, gen } → whether it deleted; move { from, gen, to, now } → the new gen at `to`,
// or null when `from` is not at `gen` any more; truncate { key, gen, size, now } → the new gen, or
// null (a row no longer than `size` keeps its gen); deletePrefix { low, high, atMostGen } → rows deleted; probe → null.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const db = new Database(workerData.path, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
db.pragma('journal_mode = WAL');
// FULL: the log is synced at every commit, so an answered write is on disk
db.pragma('synchronous = FULL');

const readGen = db.prepare('SELECT gen FROM small_blob_gen WHERE id = 1').pluck();
const writeGen = db.prepare('UPDATE small_blob_gen SET gen = ? WHERE id = 1');
const upsert = db.prepare(
  `INSERT INTO small_blobs (key, gen, modified_at, bytes) VALUES (?, ?, ?, ?)
   ON CONFLICT (key) DO UPDATE SET gen = excluded.gen, modified_at = excluded.modified_at, bytes = excluded.bytes`,
);
const deleteIf = db.prepare('DELETE FROM small_blobs WHERE key = ? AND gen = ?');
const bytesAt = db.prepare('SELECT bytes FROM small_blobs WHERE key = ? AND gen = ?').pluck();
const sizeAt = db.prepare('SELECT length(bytes) FROM small_blobs WHERE key = ? AND gen = ?').pluck();
const truncate = db.prepare('UPDATE small_blobs SET bytes = substr(bytes, 1, ?), gen = ?, modified_at = ? WHERE key = ?');
const deleteRange = db.prepare('DELETE FROM small_blobs WHERE key >= ? AND key < ? AND gen <= ?');
const probeInsert = db.prepare('INSERT OR REPLACE INTO small_blob_probe (id, padding) VALUES (1, zeroblob(?))');
const probeDelete = db.prepare('DELETE FROM small_blob_probe');
const pageSize = db.pragma('page_size', { simple: true });

/** one group, one transaction; the generation counter read once and written back once */
const writeGroup = db.transaction((requests) => {
  let gen = readGen.get();
  const next = () => ++gen;
  const answers = requests.map((r) => ({ id: r.id, value: apply(r, next) }));
  writeGen.run(gen);
  return answers;
});

function apply(r, next) {
  switch (r.op) {
    case 'put': {
      const gen = next();
      upsert.run(r.key, gen, r.now, r.bytes);
      return gen;
    }
    case 'deleteIf':
      return deleteIf.run(r.key, r.gen).changes === 1;
    case 'move': {
      const bytes = bytesAt.get(r.from, r.gen);
      if (bytes === undefined) return null;
      const gen = next();
      upsert.run(r.to, gen, r.now, bytes);
      deleteIf.run(r.from, r.gen);
      return gen;
    }
    case 'truncate': {
      const size = sizeAt.get(r.key, r.gen);
      if (size === undefined) return null;
      if (size <= r.size) return r.gen;
      const gen = next();
      truncate.run(r.size, gen, r.now, r.key);
      return gen;
    }
    case 'deletePrefix':
      return deleteRange.run(r.low, r.high, r.atMostGen).changes;
    case 'probe':
      // a row of a page's size: when the file can neither reuse a page nor grow, this fails as a put would
      probeInsert.run(pageSize);
      probeDelete.run();
      return null;
    default:
      throw new Error(`unknown small-blob op ${r.op}`);
  }
}

let queue = [];
let scheduled = false;
function flush() {
  scheduled = false;
  const group = queue;
  queue = [];
  try {
    // IMMEDIATE: the write lock at BEGIN, so another process's writer makes this one wait (busy timeout)
    parentPort.postMessage({ type: 'done', answers: writeGroup.immediate(group) });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', ids: group.map((r) => r.id), message: String(error?.message ?? error), code: error?.code });
  }
}

parentPort.on('message', (message) => {
  if (message.type === 'close') {
    if (queue.length > 0) flush();
    db.close();
    parentPort.close();
    return;
  }
  queue.push(message);
  // the requests of this turn join the group
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});

parentPort.postMessage({ type: 'ready' });
