import type { Collection } from 'mongodb';
import { isDuplicateKey } from './errors.js';

export interface LeaseRecord {
  _id: string;
  holder: string;
  /** ms since the epoch, as the callers' clocks say */
  expiresAt: number;
}

/**
 * Takes or renews a lease in one atomic findAndModify: taken when free, expired, or already the
 * holder's. When someone else holds it, the filter matches nothing and the upsert's insert meets the
 * `_id` (a duplicate key): not taken. Two holders racing for a free lease: one insert wins.
 */
export async function tryLease(leases: Collection<LeaseRecord>, name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
  try {
    const lease = await leases.findOneAndUpdate(
      { _id: name, $or: [{ holder }, { expiresAt: { $lte: now } }] },
      { $set: { holder, expiresAt: now + ttlMs } },
      { upsert: true, returnDocument: 'after' },
    );
    return lease?.holder === holder;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}
