import type { ReadStore } from '../src/ports/readStore.js';
import { applyEvents, type EventToApply, type PositionedDocument } from './apply.js';
import type { AnyProjection, Followers } from './definition.js';

/**
 * Where a batch finds the followers it does not hold: the read store (`findByKey`), or a rebuild's
 * WriteBack over it (`idsUnder`). Either is needed only by a projection with followers.
 */
export interface FollowerSource {
  getMany: ReadStore['getMany'];
  findByKey?: ReadStore['findByKey'];
  /** the ids stored under index key `key`, as this source would answer them (a WriteBack: its held documents too) */
  idsUnder?(collection: string, key: string): Promise<string[]>;
}

const PAGE = 1000;

/** every id stored under index key `key`, a page of `findByKey` at a time */
export async function storedIdsUnder(store: Partial<Pick<ReadStore, 'findByKey'>>, collection: string, key: string): Promise<string[]> {
  if (!store.findByKey) throw new Error(`finding the documents under ${key} in ${collection} needs a store with findByKey`);
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.findByKey(collection, key, { limit: PAGE, descending: false, ...(after !== undefined ? { after } : {}) });
    for (const d of page) ids.push(d.id);
    if (page.length < PAGE) return ids;
    after = page[page.length - 1]!.sort;
  }
}

/**
 * As applyEvents, an event at a time, each followed by the changes its leaders bring their followers
 * (definition.ts `Followers`). Followers not held yet are read into `docs`, and their ids added to
 * `stored`. Answers the ids that changed.
 */
export async function applyFollowing(
  source: FollowerSource,
  p: AnyProjection,
  collection: string,
  events: readonly Required<EventToApply>[],
  docs: Map<string, PositionedDocument<unknown>>,
  stored: Set<string>,
): Promise<Set<string>> {
  const f = p.followers as Followers<unknown, EventToApply['event']> | undefined;
  if (!f) return applyEvents(p, events, docs);
  const changed = new Set<string>();
  for (const e of events) {
    const byEvent = applyEvents(p, [e], docs);
    for (const id of byEvent) changed.add(id);
    for (const leaderId of e.ids) {
      // a replayed event changes no leader, so neither its followers
      if (!byEvent.has(leaderId)) continue;
      const leader = docs.get(leaderId)!.doc;
      const which = f.after(e.event, leaderId, leader);
      if (which === 'none') continue;
      const ids = which === 'named' ? e.ids : await allFollowers(leaderId);
      for (const id of ids) {
        const current = docs.get(id);
        if (current?.doc === undefined || f.leaderOf(current.doc) !== leaderId) continue;
        if (current.position >= e.recorded.position && !byEvent.has(id)) continue;
        docs.set(id, { doc: f.follow(current.doc, leader, { id, leaderId }), position: e.recorded.position });
        changed.add(id);
      }
    }
  }
  return changed;

  /** the leader's followers, those the batch holds and those stored, the stored ones read into `docs` */
  async function allFollowers(leaderId: string): Promise<string[]> {
    const leaderOf = f!.leaderOf;
    const key = f!.keyOf(leaderId);
    const storedIds = source.idsUnder ? await source.idsUnder(collection, key) : await storedIdsUnder(source, collection, key);
    const missing = storedIds.filter((id) => !docs.has(id));
    if (missing.length > 0) {
      for (const [id, d] of await source.getMany<unknown>(collection, missing)) {
        docs.set(id, d);
        stored.add(id);
      }
    }
    const ids = new Set(storedIds);
    for (const [id, d] of docs) if (d.doc !== undefined && leaderOf(d.doc) === leaderId) ids.add(id);
    return [...ids];
  }
}
