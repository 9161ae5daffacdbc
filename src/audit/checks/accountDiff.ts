import type { SerializedAccount } from '../../domain/account/serialized.js';
import type { AccountState } from '../../domain/account/state.js';
import { canonicalCreditId } from '../../domain/topUp/ids.js';

/**
 * How a read-model document differs from the state its account's events add up to, one phrase per
 * field (empty: they agree). Compared by meaning, not by JSON text: key order carries no fact.
 */
export function accountDifferences(doc: SerializedAccount, replay: AccountState): string[] {
  const out: string[] = [];
  const field = (name: string, model: string, truth: string) => {
    if (model !== truth) out.push(`${name}: read model ${model}, events ${truth}`);
  };
  field('credited', String(doc.credited), replay.credited.toString());
  field('spent', String(doc.spent), replay.spent.toString());
  // a document projected before credit ids were canonical holds them as spelled then (two spellings of
  // one transfer, if it was credited twice), the events read canonical: compared as canonical sets
  field('credit ids', sorted(new Set((doc.creditIds ?? []).map(canonicalCreditId))), sorted(new Set([...replay.creditIds].map(canonicalCreditId))));
  field(
    'reservations',
    sorted(Object.entries(doc.reservations ?? {}).map(([id, r]) => `${id}=${String(r.winc)}/${String(r.dataItemId)}${r.onBehalfOf ? `/${r.onBehalfOf}` : ''}`)),
    sorted([...replay.reservations].map(([id, r]) => `${id}=${r.winc}/${r.dataItemId}${r.onBehalfOf ? `/${r.onBehalfOf}` : ''}`)),
  );
  field(
    'approvals',
    sorted(Object.entries(doc.approvals ?? {}).map(([a, ap]) => `${a}=${String(ap.remaining)}${ap.expiresAt !== undefined ? `@${ap.expiresAt}` : ''}`)),
    sorted([...replay.approvals].map(([a, ap]) => `${a}=${ap.remaining}${ap.expiresAt !== undefined ? `@${ap.expiresAt}` : ''}`)),
  );
  return out;
}

const sorted = (values: Iterable<string>) => `[${[...values].sort().join(', ')}]`;
