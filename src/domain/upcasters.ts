/**
 * The upcaster registry: how an event stored in an older shape reads as today's. Events are
 * forever, so a changed shape is never rewritten in the store; instead each event type whose shape
 * changed lists, by version, the function from that version's data to the next one's. A recorded
 * event's metadata `schemaVersion` says which shape it was written in; `fromRecorded` applies the
 * chain from there to the type's current version before the zod schema sees the data, so every
 * reader (aggregates, the projector, the audit, the history) gets today's shape and none stalls on
 * an old one.
 *
 * To change an event's shape: write the new shape in its zod schema, and add here, under the event
 * type, an upcaster keyed by the version it upgrades from (the type's first shape is 1). The type's
 * current version (written on every new event of that type) is one more than its last upcaster key.
 */
import { canonicalTransferId, creditIdOfTransfer } from './topUp/ids.js';

type Data = Record<string, unknown>;
type Upcaster = (data: Data) => Data;

const upcasters: Readonly<Record<string, Readonly<Record<number, Upcaster>>>> = {
  BundleDropped: {
    // v1 (before `countsAsAttempt` was required): an absent flag meant the drop counted as an attempt
    1: ({ countsAsAttempt, ...data }) => ({ ...data, countsAsAttempt: countsAsAttempt ?? true }),
  },
  // v1 (before ids were canonical): a transaction id as the client spelled it (upper-case hex, spare
  // bits set); read in its canonical spelling, so a claim or a credit stored then blocks every other
  // spelling of its transaction now (the account's credit ids, the pending claims, the audit)
  TopUpClaimed: { 1: (data) => withCanonicalTxId(data) },
  TopUpExpired: { 1: (data) => withCanonicalTxId(data) },
  AccountCredited: { 1: (data) => (isData(data.onChain) ? withCanonicalCredit(data, data.onChain) : data) },
};

const isData = (value: unknown): value is Data => typeof value === 'object' && value !== null && !Array.isArray(value);

function withCanonicalTxId(data: Data): Data {
  const { token, txId } = data;
  if (typeof token !== 'string' || typeof txId !== 'string') return data;
  return { ...data, txId: canonicalTransferId(token, txId) ?? txId };
}

/** a top-up credit's transaction and its credit id `<token>:<txId>`; a credit id of another form is left for the audit to see */
function withCanonicalCredit(data: Data, onChain: Data): Data {
  const { token, txId } = onChain;
  if (typeof token !== 'string' || typeof txId !== 'string') return data;
  const creditId = data.creditId === `${token}:${txId}` ? creditIdOfTransfer(token, txId) : data.creditId;
  return { ...data, creditId, onChain: withCanonicalTxId(onChain) };
}

/** the version today's code writes for events of `type` */
export function schemaVersionOf(type: string): number {
  const chain = upcasters[type];
  return chain ? Math.max(...Object.keys(chain).map(Number)) + 1 : 1;
}

/**
 * `data` of an event of `type` written in shape `version` (absent: 1, as every event before the
 * registry was written), brought to today's shape. A version newer than today's (written by a newer
 * service) is left as it is: the schema decides whether it still reads.
 */
export function upcast(type: string, data: unknown, version: number | undefined): unknown {
  const chain = upcasters[type];
  if (!chain || typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  let shaped = data as Data;
  for (let v = version ?? 1; v < schemaVersionOf(type); v++) {
    const step = chain[v];
    if (!step) throw new Error(`no upcaster for ${type} from schema version ${v}`);
    shaped = step(shaped);
  }
  return shaped;
}
