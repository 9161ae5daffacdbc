/**
 * The messages between the store (main thread) and its writer worker, and how errors cross.
 *
 * An error does not keep its class through postMessage (structured clone keeps message and stack at
 * best), so the worker sends what the port's error is made of and the main thread builds the same
 * error again: WrongExpectedRevision with its stream, expected and actual; DuplicateEventId with its
 * ids; a SQLite code of `unavailable.ts` as EventStoreUnavailable whose cause is a SqliteError with
 * that code, as the in-thread writer answers.
 */
import Database from 'better-sqlite3';
import { match } from 'ts-pattern';
import { WrongExpectedRevision, type AppendResult, type ExpectedRevision, type StreamName } from '../../ports/eventStore.js';
import { DuplicateEventId, type AppendRequest } from './eventStoreAppend.js';
import { eventStoreUnavailable } from './eventStoreGroupCommit.js';
import { unavailableCode } from './unavailable.js';

/** What the worker is started with (workerData): plain data only. */
export interface WriterData {
  path: string;
  busyTimeoutMs: number;
  /** pragma assignments made so far, applied in order after the store's own (a restarted worker gets them too) */
  pragmas: string[];
}

export type ToWriter =
  | { type: 'group'; id: number; requests: AppendRequest[]; created: number }
  | { type: 'probe'; id: number }
  | { type: 'pragma'; source: string }
  | { type: 'close' };

export type WireError =
  | { kind: 'wrongExpectedRevision'; stream: string; expected: ExpectedRevision; actual: bigint | 'no_stream' }
  | { kind: 'duplicateEventId'; eventId: string; storedIn: string }
  | { kind: 'sqlite'; code: string; message: string }
  | { kind: 'other'; name: string; message: string };

export type WireOutcome = { ok: true; result: AppendResult } | { ok: false; error: WireError };

export type FromWriter =
  | { type: 'ready' }
  | { type: 'group'; id: number; outcomes: WireOutcome[] }
  | { type: 'group'; id: number; failure: WireError }
  | { type: 'probe'; id: number; failure?: WireError };

export function toWire(error: unknown): WireError {
  if (WrongExpectedRevision.is(error)) {
    return { kind: 'wrongExpectedRevision', stream: error.stream, expected: error.expected, actual: error.actual };
  }
  if (error instanceof DuplicateEventId) return { kind: 'duplicateEventId', eventId: error.eventId, storedIn: error.storedIn };
  const code = unavailableCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code !== undefined) return { kind: 'sqlite', code, message };
  return { kind: 'other', name: error instanceof Error ? error.name : 'Error', message };
}

/** the error the in-thread writer would have answered */
export function fromWire(wire: WireError): Error {
  return match(wire)
    .with({ kind: 'wrongExpectedRevision' }, (w) => new WrongExpectedRevision(w.stream as StreamName, w.expected, w.actual))
    .with({ kind: 'duplicateEventId' }, (w) => new DuplicateEventId(w.eventId, w.storedIn))
    .with({ kind: 'sqlite' }, (w) => eventStoreUnavailable(w.code, new Database.SqliteError(w.message, w.code)))
    .with({ kind: 'other' }, (w) => Object.assign(new Error(w.message), { name: w.name }))
    .exhaustive();
}
