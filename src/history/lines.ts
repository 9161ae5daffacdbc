import type { RecordedEvent } from '../ports/eventStore.js';
import type { TxStatusDocument } from '../../projections/index.js';
import { parseRecorded } from '../audit/parse.js';
import { factsOf } from '../domain/facts.js';

/** how the secondary part of a line (the metadata) is set off: dim on a terminal, plain otherwise */
export type Dim = (text: string) => string;
export const plain: Dim = (text) => `[${text}]`;
export const ansiDim: Dim = (text) => `\x1b[2m[${text}]\x1b[22m`;

/** the type column is as wide as the longest event type, so facts line up */
const TYPE_WIDTH = 'UploadFinalizeRequested'.length;

/** `#revision  time  type  facts  [metadata]` */
export function timelineLine(recorded: RecordedEvent, dim: Dim = plain): string {
  const parsed = parseRecorded(recorded);
  const facts = parsed.event
    ? factsOf(parsed.event)
    : parsed.invalid !== undefined
      ? `(its data does not match the schema: ${parsed.invalid})`
      : '(not an event of this service)';
  const meta = metadataOf(recorded);
  return `#${recorded.revision}  ${new Date(recorded.created).toISOString()}  ${recorded.type.padEnd(TYPE_WIDTH)}  ${facts}${meta ? `  ${dim(meta)}` : ''}`;
}

function metadataOf({ metadata }: RecordedEvent): string {
  const parts = [`correlation ${metadata.correlationId}`];
  if (metadata.causationId !== undefined) parts.push(`caused by ${metadata.causationId}`);
  if (metadata.clientAddress !== undefined) parts.push(`client ${metadata.clientAddress}`);
  return parts.join(', ');
}

/** where the item is now, from the tx-status read model */
export function itemStatusLine(doc: TxStatusDocument | undefined): string {
  if (!doc) return 'now: not in the tx-status read model yet (the projector has not reached it)';
  const place =
    doc.planId !== undefined
      ? `in plan ${doc.planId} at offset ${doc.startOffsetInRootBundle ?? '?'}${doc.bundleId !== undefined ? `, bundle tx ${doc.bundleId}` : ''}`
      : doc.status === 'FAILED'
        ? 'in no bundle'
        : 'waiting for a bundle';
  return `now: ${doc.status} (${doc.info}), ${place}`;
}

/** a recorded event as `--json` prints it: bigints (revision, position) as decimal strings */
export const jsonEntry = (e: RecordedEvent) => ({
  streamName: e.streamName,
  revision: e.revision.toString(),
  position: e.position.toString(),
  id: e.id,
  type: e.type,
  created: new Date(e.created).toISOString(),
  data: e.data,
  metadata: e.metadata,
});
