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
type Data = Record<string, unknown>;
type Upcaster = (data: Data) => Data;

const upcasters: Readonly<Record<string, Readonly<Record<number, Upcaster>>>> = {
  BundleDropped: {
    // v1 (before `countsAsAttempt` was required): an absent flag meant the drop counted as an attempt
    1: ({ countsAsAttempt, ...data }) => ({ ...data, countsAsAttempt: countsAsAttempt ?? true }),
  },
};

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
