import type { AnyBulkWriteOperation } from 'mongodb';
import { CheckpointConflict, type CheckpointWrite, type DocumentWrite } from '../../ports/readStore.js';
import { encodePosition } from './positions.js';

/**
 * What a commit writes, worked out without I/O from the commit's arguments and the positions stored
 * now (read in the commit's transaction).
 */

/**
 * A read-model document as stored. A deleted document stays as a tombstone (`live: false`, no `doc`)
 * carrying the position of its deletion, so replaying an older event cannot bring it back.
 */
export interface DocumentRecord {
  _id: string;
  position: bigint;
  live: boolean;
  doc?: unknown;
  /** the document's index keys (a multikey index on keys and sort answers `findByKey`); absent: none */
  keys?: string[];
  sort?: string;
}

export interface CheckpointRecord {
  _id: string;
  position: bigint;
}

export interface PlannedDocument {
  id: string;
  position: bigint;
  replacement: Omit<DocumentRecord, '_id'>;
}

/**
 * Documents are stored as BSON after a JSON round trip, so they read back exactly as from the SQLite
 * store (which keeps JSON text): `undefined` members vanish instead of becoming `null`, dates become
 * strings, and a bigint fails loudly in both stores rather than differently.
 */
export function normalizeDocument(doc: unknown): unknown {
  const json = JSON.stringify(doc);
  if (json === undefined) throw new TypeError(`a read-model document must be JSON: ${typeof doc}`);
  return JSON.parse(json) as unknown;
}

/**
 * The writes by collection, one per document: the one with the highest position (the later one on a
 * tie), which is all that conditional writes would keep anyway. Positions are checked here, so a
 * commit with one out of range fails before anything is written.
 */
export function planDocuments(writes: readonly DocumentWrite[]): Map<string, PlannedDocument[]> {
  const latest = new Map<string, Map<string, DocumentWrite>>();
  for (const write of writes) {
    encodePosition(write.position);
    const byId = latest.get(write.collection) ?? new Map<string, DocumentWrite>();
    const seen = byId.get(write.id);
    if (seen === undefined || write.position >= seen.position) byId.set(write.id, write);
    latest.set(write.collection, byId);
  }
  const planned = new Map<string, PlannedDocument[]>();
  for (const [collection, byId] of latest) {
    planned.set(
      collection,
      [...byId.values()].map(({ id, doc, position, index }) => ({
        id,
        position,
        replacement:
          doc === undefined
            ? { position, live: false }
            : { position, live: true, doc: normalizeDocument(doc), ...(index ? { keys: [...new Set(index.keys)], sort: index.sort } : {}) },
      })),
    );
  }
  return planned;
}

/**
 * Replacements of the documents whose stored position (tombstones included) is older than the
 * write's, or that are not stored: replaying an event a document already reflects, or one older
 * than its deletion, writes nothing. The filter repeats the guard, so the write is safe on its own.
 */
export function documentOps(planned: readonly PlannedDocument[], stored: ReadonlyMap<string, bigint>): AnyBulkWriteOperation<DocumentRecord>[] {
  return planned
    .filter(({ id, position }) => {
      const current = stored.get(id);
      return current === undefined || current < position;
    })
    .map(({ id, position, replacement }) => ({
      replaceOne: { filter: { _id: id, position: { $lt: position } }, replacement, upsert: true },
    }));
}

/**
 * The checkpoint writes of a commit, given the checkpoints stored now. Every `expected` is checked
 * against the stored value first (CheckpointConflict, and the commit writes nothing). A checkpoint
 * written with `expected` takes the position given; one written without only ever moves forward.
 */
export function checkpointOps(checkpoints: readonly CheckpointWrite[], stored: ReadonlyMap<string, bigint>): AnyBulkWriteOperation<CheckpointRecord>[] {
  for (const { name, expected } of checkpoints) {
    if (expected === undefined) continue;
    const actual = stored.get(name);
    if (expected === null ? actual !== undefined : actual !== expected) throw new CheckpointConflict(name, expected, actual);
  }
  const next = new Map<string, bigint>();
  for (const { name, position, expected } of checkpoints) {
    encodePosition(position);
    const current = next.get(name) ?? stored.get(name);
    next.set(name, expected !== undefined || current === undefined || position > current ? position : current);
  }
  return [...next]
    .filter(([name, position]) => stored.get(name) !== position)
    .map(([name, position]) => ({ replaceOne: { filter: { _id: name }, replacement: { position }, upsert: true } }));
}
