import type { BlockEntry, BlocklistCommandResult } from '../app/blocklist.js';
import type { BlocklistState } from '../domain/blocklist/decider.js';

/** The bodies of the block-list routes (http/openapi/bodies.ts), shared with the CLIs' --json. */

const entryBody = (entry: BlockEntry) => ({ address: entry.address, by: entry.by, reason: entry.reason, since: new Date(entry.since).toISOString() });

export const blocklistBody = (entries: readonly BlockEntry[]) => ({ blocked: entries.map(entryBody) });

/** what a block or unblock left: whether `address` is blocked now, and whether this command changed it */
export function blockAnswerBody(address: string, result: Pick<BlocklistCommandResult, 'events' | 'state'>) {
  const block = (result.state as BlocklistState).get(address);
  return {
    address,
    blocked: block !== undefined,
    changed: result.events.length > 0,
    ...(block ? { entry: entryBody({ address, ...block }) } : {}),
  };
}
