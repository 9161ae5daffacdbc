import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the embedded profile's stores hold, read from their files (read-only connections that see
 * the service's committed writes, its write-ahead logs included) for the per-item figures of
 * per-item-costs.ts. Sizes are SQLite's page counts times the page size: what each file is once its
 * log is copied in, whatever the log holds at the moment of reading.
 */
export interface StoreFigures {
  events: {
    fileBytes: number;
    count: number;
    /** by event type: how many, and the bytes of their serialized data and metadata (UTF-8) */
    byType: Record<string, { count: number; dataBytes: number; metadataBytes: number }>;
    /** distinct streams by category (the stream name before its first `-`) */
    streams: Record<string, number>;
  };
  read: {
    fileBytes: number;
    /** bytes of SQLite's pages by table and index (the `dbstat` virtual table) */
    pagesByName: Record<string, number>;
    /** by collection: documents, their JSON's bytes, and their `findByKey` keys */
    collections: Record<string, { documents: number; docBytes: number; keys: number }>;
  };
  smallBlobs: { fileBytes: number; rows: number; bytes: number };
}

const open = (path: string) => new Database(path, { readonly: true, fileMustExist: true });
const fileBytes = (db: Database.Database) => (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);

interface TypeRow {
  type: string;
  count: number;
  dataBytes: number;
  metadataBytes: number;
}

function eventFigures(path: string): StoreFigures['events'] {
  const db = open(path);
  try {
    const rows = db
      .prepare(
        'SELECT type, count(*) AS count, sum(length(CAST(data AS BLOB))) AS dataBytes, sum(length(CAST(metadata AS BLOB))) AS metadataBytes FROM events GROUP BY type ORDER BY type',
      )
      .all() as TypeRow[];
    const streams = db
      .prepare("SELECT substr(stream, 1, instr(stream || '-', '-') - 1) AS category, count(DISTINCT stream) AS n FROM events GROUP BY category")
      .all() as { category: string; n: number }[];
    return {
      fileBytes: fileBytes(db),
      count: rows.reduce((sum, r) => sum + r.count, 0),
      byType: Object.fromEntries(rows.map((r) => [r.type, { count: r.count, dataBytes: r.dataBytes, metadataBytes: r.metadataBytes }])),
      streams: Object.fromEntries(streams.map((s) => [s.category, s.n])),
    };
  } finally {
    db.close();
  }
}

function readFigures(path: string): StoreFigures['read'] {
  const db = open(path);
  try {
    const pages = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all() as { name: string; bytes: number }[];
    const docs = db
      .prepare('SELECT collection, count(*) AS documents, sum(length(CAST(doc AS BLOB))) AS docBytes FROM documents GROUP BY collection')
      .all() as {
      collection: string;
      documents: number;
      docBytes: number;
    }[];
    const keys = new Map(
      (db.prepare('SELECT collection, count(*) AS n FROM document_keys GROUP BY collection').all() as { collection: string; n: number }[]).map((k) => [
        k.collection,
        k.n,
      ]),
    );
    return {
      fileBytes: fileBytes(db),
      pagesByName: Object.fromEntries(pages.map((p) => [p.name, p.bytes])),
      collections: Object.fromEntries(docs.map((d) => [d.collection, { documents: d.documents, docBytes: d.docBytes, keys: keys.get(d.collection) ?? 0 }])),
    };
  } finally {
    db.close();
  }
}

function smallBlobFigures(path: string): StoreFigures['smallBlobs'] {
  if (!existsSync(path)) return { fileBytes: 0, rows: 0, bytes: 0 };
  const db = open(path);
  try {
    const { rows, bytes } = db.prepare('SELECT count(*) AS rows, coalesce(sum(length(bytes)), 0) AS bytes FROM small_blobs').get() as {
      rows: number;
      bytes: number;
    };
    return { fileBytes: fileBytes(db), rows, bytes };
  } finally {
    db.close();
  }
}

/** the embedded stores of a service's DATA_DIR, as they stand */
export function storeFigures(dataDir: string): StoreFigures {
  return {
    events: eventFigures(join(dataDir, 'events.db')),
    read: readFigures(join(dataDir, 'read.db')),
    smallBlobs: smallBlobFigures(join(dataDir, 'blobs', '.small-blobs.db')),
  };
}

/**
 * Whether the service's work on what it holds is done: every projection's checkpoint at the last
 * event, and (with `bundled`) every accepted item in a permanent bundle.
 */
export function settled(dataDir: string, { bundled }: { bundled: boolean }): boolean {
  const events = open(join(dataDir, 'events.db'));
  const read = open(join(dataDir, 'read.db'));
  try {
    // the items first, then the last position read after them: the events that made them permanent
    // are at or below it, so the projections are judged on those too
    if (bundled) {
      const accepted = events.prepare("SELECT count(*) FROM events WHERE type = 'DataItemAccepted'").pluck().get() as number;
      const permanent = events
        .prepare("SELECT coalesce(sum(json_array_length(data, '$.itemIds')), 0) FROM events WHERE type = 'BundlePermanent'")
        .pluck()
        .get() as number;
      if (permanent < accepted) return false;
    }
    const last = events.prepare('SELECT coalesce(max(position), 0) FROM events').pluck().get() as number;
    const lowest = read.prepare('SELECT min(position) FROM checkpoints').pluck().get() as number | null;
    return last === 0 || (lowest !== null && lowest >= last);
  } finally {
    events.close();
    read.close();
  }
}
