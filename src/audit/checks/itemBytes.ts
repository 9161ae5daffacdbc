import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { BlobNotFound, type BlobStore } from '../../ports/blobStore.js';
import type { DataItemAccepted } from '../../domain/dataItem/events.js';
import { dataItemStream, type DataItemId } from '../../domain/ids.js';
import type { EventStore } from '../../ports/eventStore.js';
import { createDataItemVerifier, type VerifiedDataItem } from '../../verify/index.js';
import { createPool } from '../pool.js';
import { messageOf, type AuditEvent, type AuditSink, type FindingKind } from '../types.js';

export interface ItemBytesDeps {
  blobStore: Pick<BlobStore, 'read'>;
  /** to tell a blob missing from one retired after permanence (absent: every missing blob is a finding) */
  eventStore?: Pick<EventStore, 'readStream'>;
  /** blobs read at once (default: the number of cores, at least 2, so reading overlaps hashing) */
  concurrency?: number;
}

/**
 * Invariants 1 and 2 of the audit: every accepted item's blob is there, has the recorded size and
 * sha256, and its bytes verify as a data item whose id is the recorded one. One read per blob feeds
 * the digest and the streaming verifier together: memory stays at a chunk per blob in flight.
 */
export async function checkItemBytes(events: AsyncIterable<AuditEvent>, deps: ItemBytesDeps, sink: AuditSink): Promise<void> {
  const pool = createPool(deps.concurrency ?? Math.max(2, availableParallelism()));
  for await (const { event } of events) {
    if (event.type !== 'DataItemAccepted') continue;
    await pool.run(() => checkOne(event.data, deps, sink));
  }
  await pool.drain();
}

type Accepted = DataItemAccepted['data'];

/** whether the item's stream records its bytes retired: then its blob is meant to be gone */
async function isRetired(eventStore: ItemBytesDeps['eventStore'], id: string): Promise<boolean> {
  if (!eventStore) return false;
  for await (const recorded of eventStore.readStream(dataItemStream(id as DataItemId))) if (recorded.type === 'ItemBytesRetired') return true;
  return false;
}

async function checkOne(item: Accepted, { blobStore, eventStore }: ItemBytesDeps, sink: AuditSink): Promise<void> {
  sink.count('itemBlobs');
  const report = (kind: FindingKind, detail: string) => sink.finding({ kind, id: item.id, detail });
  let bytes: AsyncIterable<Uint8Array>;
  try {
    bytes = await blobStore.read(item.blobKey);
  } catch (error) {
    if (BlobNotFound.is(error)) {
      if (await isRetired(eventStore, item.id)) return sink.count('retiredItemBlobs');
      return report('blob-missing', `no blob at ${item.blobKey}`);
    }
    return report('blob-unreadable', `${item.blobKey}: ${messageOf(error)}`);
  }

  const hash = createHash('sha256');
  // no size limit here: a blob longer than recorded is reported as such, not refused halfway. Tags are
  // read by arbundles' rules, never STRICT_TAGS: an item accepted before the operator turned strict
  // (or under the default) is not bad for it, and every item either setting accepts meets them
  const verifier = createDataItemVerifier({ maxSize: Number.MAX_SAFE_INTEGER });
  let size = 0;
  let invalid: unknown;
  try {
    for await (const chunk of bytes) {
      size += chunk.byteLength;
      hash.update(chunk);
      // a header already known bad stops the verifier, not the digest
      if (invalid === undefined) {
        try {
          verifier.write(chunk);
        } catch (error) {
          invalid = error;
        }
      }
    }
  } catch (error) {
    return report('blob-unreadable', `${item.blobKey}: ${messageOf(error)}`);
  }

  if (size !== item.rawContentLength) report('blob-size', `blob has ${size} bytes, the event says ${item.rawContentLength}`);
  const digest = hash.digest('hex');
  if (digest !== item.sha256) report('blob-digest', `blob sha256 ${digest}, the event says ${item.sha256}`);

  let verified: VerifiedDataItem | undefined;
  if (invalid === undefined) {
    try {
      verified = await verifier.end();
    } catch (error) {
      invalid = error;
    }
  }
  if (!verified) return report('item-signature', `bytes do not verify: ${messageOf(invalid)}`);
  if (verified.id !== item.id) return report('item-id', `bytes are item ${verified.id}`);
  const differs = headerDifferences(verified, item);
  if (differs.length > 0) report('item-header', differs.join('; '));
}

/** the facts the acceptance copied from the verified header, compared with the bytes' own */
function headerDifferences(verified: VerifiedDataItem, item: Accepted): string[] {
  const pairs: [string, unknown, unknown][] = [
    ['signatureType', verified.signatureType, item.signatureType],
    ['owner', verified.owner, item.owner],
    ['nativeAddress', verified.nativeAddress, item.nativeAddress],
    ['payloadDataStart', verified.payloadDataStart, item.payloadDataStart],
    ['payloadContentType', verified.contentType, item.payloadContentType],
  ];
  return pairs
    .filter(([, bytes, event]) => bytes !== event)
    .map(([name, bytes, event]) => `${name}: bytes say ${String(bytes)}, the event says ${String(event)}`);
}
