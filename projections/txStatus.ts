import { match } from 'ts-pattern';
import type { DataItemEvent } from '../src/domain/dataItem/events.js';
import type { ProjectionDefinition } from './definition.js';

/** Answers `GET /tx/:id/status` (CONTRACT.md section 6). */
export interface TxStatusDocument {
  status: 'CONFIRMED' | 'FINALIZED' | 'FAILED';
  info: 'new' | 'pending' | 'permanent' | 'failed';
  winc: string;
  rawContentLength: number;
  payloadContentType: string;
  payloadDataStart: number;
  payloadContentLength: number;
  /** acceptance time, for the offsets retention */
  timestamp: number;
  bundleId?: string;
  startOffsetInRootBundle?: number;
}

export const txStatusProjection: ProjectionDefinition<TxStatusDocument, DataItemEvent> = {
  name: 'tx-status',
  version: 1,
  handles: ['DataItemAccepted'],
  documentIds: (event) => match(event).with({ type: 'DataItemAccepted' }, (e) => [e.data.id]).exhaustive(),
  reduce: (doc, event) =>
    match(event)
      .with({ type: 'DataItemAccepted' }, ({ data }) =>
        // a second acceptance cannot happen (the stream is created with "no stream"); keep the first
        doc ?? {
          status: 'CONFIRMED' as const,
          info: 'new' as const,
          winc: data.winc,
          rawContentLength: data.rawContentLength,
          payloadContentType: data.payloadContentType,
          payloadDataStart: data.payloadDataStart,
          payloadContentLength: data.rawContentLength - data.payloadDataStart,
          timestamp: data.timestamp,
        },
      )
      .exhaustive(),
};
