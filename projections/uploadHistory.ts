import { match } from 'ts-pattern';
import type { DomainEvent } from '../src/domain/events.js';
import type { HandledEvent, ProjectionDefinition } from './definition.js';
import { countOf, entryOf, type HistoryEntry } from './itemHistory.js';

/**
 * The steps of a multi-part upload before its item is known (their events name no item), for the
 * timeline of the item it becomes: created, chunks, finalize requested. The chunks are one entry,
 * updated in place: an upload of thousands of chunks stays a few entries.
 */
export interface UploadHistoryDocument {
  entries: HistoryEntry[];
  /** the chunks of the open run (since creation or the last finalize request), which the last entry tells */
  run?: ChunkTally;
}

const handles = ['UploadCreated', 'ChunkReceived', 'UploadFinalizeRequested'] as const;
type UploadHistoryEvent = HandledEvent<typeof handles>;

interface ChunkTally {
  count: number;
  bytes: number;
}

const chunkSummary = ({ count, bytes }: ChunkTally) => `${countOf(count, 'chunk')} received: ${bytes} bytes`;

export const uploadHistoryProjection: ProjectionDefinition<UploadHistoryDocument, UploadHistoryEvent> = {
  name: 'upload-history',
  version: 1,
  handles,
  documentIds: (event) => [event.data.uploadId],
  reduce: (doc, event, { recorded }) => {
    const entries = doc?.entries ?? [];
    return match(event)
      .returnType<UploadHistoryDocument>()
      .with({ type: 'UploadCreated' }, ({ data: d }) => {
        const size = d.chunkSize !== undefined ? `, chunk size ${d.chunkSize}` : '';
        return { entries: [...entries, entryOf(event.type, recorded, d.timestamp, `multi-part upload ${d.uploadId} created (token ${d.token}${size})`)] };
      })
      .with({ type: 'ChunkReceived' }, ({ data: d }) => {
        // the run's entry keeps the position of its first chunk and takes the time of its latest
        const open = doc?.run !== undefined ? entries[entries.length - 1] : undefined;
        const run = { count: (doc?.run?.count ?? 0) + 1, bytes: (doc?.run?.bytes ?? 0) + d.length };
        const entry = { ...entryOf(event.type, recorded, d.timestamp, chunkSummary(run)), ...(open ? { position: open.position } : {}) };
        return { entries: open ? [...entries.slice(0, -1), entry] : [...entries, entry], run };
      })
      .with({ type: 'UploadFinalizeRequested' }, ({ data: d }) => {
        const what = d.mode === 'sync' ? 'finalize' : 'background finalize';
        const payers = d.paidBy.length > 0 ? `, paid by ${d.paidBy.join(', ')}` : '';
        return { entries: [...entries, entryOf(event.type, recorded, d.timestamp, `${what} requested${payers}`)] };
      })
      .exhaustive();
  },
};
