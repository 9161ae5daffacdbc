import type { NestedItem, NestedItemsIndexed } from './events.js';

/**
 * The index of the items nested in a root item's payload, recorded on the root's stream a part at a
 * time (`NestedItemsIndexed`). The walk that finds them is deterministic, so a part is told by the
 * findings it holds: from `first` (the count recorded before it) on.
 */

/** how far the index is, as the stream records it */
export interface NestedIndexProgress {
  /** findings (items and entries left out) the recorded parts hold: the walk resumes after them */
  findings: number;
  /** the last part is recorded (or an earlier version recorded the whole index at once) */
  complete: boolean;
  /**
   * the item FAILED: its index stays as it is, requeued or not (the pending-nested-index read model
   * drops it on the failure for good)
   */
  stopped: boolean;
}

/** before any part: the acceptance of an item whose payload is a bundle */
export const noNestedIndex: NestedIndexProgress = { findings: 0, complete: false, stopped: false };

/** One finding of the walk: an item whose place is known and whose signature verifies, or what was left out and why. */
export type NestedFinding = { item: NestedItem } | { unindexed: { id: string; reason: string } };

/** a part of the walk's findings, from finding `first` on; `more` when parts follow; `now` when */
export type RecordNestedPart = {
  type: 'RecordNestedPart';
  data: { id: string; first: number; found: readonly NestedFinding[]; more: boolean; now: number };
};

export function nestedPartEvent(id: string, found: readonly NestedFinding[], timestamp: number, more: boolean): NestedItemsIndexed {
  const items = found.flatMap((f) => ('item' in f ? [f.item] : []));
  const left = found.flatMap((f) => ('unindexed' in f ? [f.unindexed] : []));
  const unindexed = left.length > 0 ? { unindexed: left } : {};
  return { type: 'NestedItemsIndexed', data: { id, items, ...unindexed, timestamp, verified: true, ...(more ? { more: true } : {}) } };
}

/** what a recorded part adds to the progress: its findings, and the end when no more follow */
export const afterPart = (progress: NestedIndexProgress, { data }: NestedItemsIndexed): NestedIndexProgress => ({
  ...progress,
  findings: progress.findings + data.items.length + (data.unindexed?.length ?? 0),
  complete: progress.complete || data.more !== true,
});

/**
 * The findings of the part not recorded yet: a racing run (another process's recovery) may have
 * recorded some of them, and they are not recorded twice. Nothing once the index is complete, nor
 * for a part whose findings are all recorded unless it is the last (it completes the index). A
 * part that starts past the recorded findings would leave a gap: the walk and the stream disagree.
 */
export function decideNestedPart(progress: NestedIndexProgress, { id, first, found, more, now }: RecordNestedPart['data']): NestedItemsIndexed[] {
  if (progress.complete || progress.stopped) return [];
  if (progress.findings < first) throw new Error(`the nested index of ${id} on its stream holds ${progress.findings} findings, ${first} expected`);
  const fresh = found.slice(progress.findings - first);
  if (fresh.length === 0 && more) return [];
  return [nestedPartEvent(id, fresh, now, more)];
}
