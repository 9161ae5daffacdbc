import type { EventStore, RecordedEvent, Subscription } from '../../ports/eventStore.js';
import type { ReadStore } from '../../ports/readStore.js';
import { fromRecorded } from '../../domain/events.js';
import { isUploadEvent, type UploadEvent } from '../../domain/upload/events.js';
import { headerChunkNamesOwner } from '../../domain/upload/state.js';
import { clientKeyOf } from '../../domain/clientKey.js';
import { checkpointOf, collectionOf, unfinishedUploadsProjection, type UnfinishedUpload } from '../../../projections/index.js';

/** What one client holds in multi-part uploads not yet at an end. */
export interface UploadUsage {
  uploads: number;
  /** bytes of their recorded chunks */
  bytes: number;
  /** bytes past the free limit of uploads whose owner no header chunk has named yet (nobody is known to pay for them) */
  headerlessExcess: number;
}

export interface UploadTally {
  /** what `client` (a key of `clientKeyOf`) holds now */
  usage(client: string): UploadUsage;
  /** the client that created an open upload */
  clientOf(uploadId: string): string | undefined;
  /**
   * An upload about to be created by `client`: counted from now, so creations racing each other all
   * see it, until its UploadCreated is followed (then it is an open upload) or it is forgotten.
   */
  expect(uploadId: string, client: string): void;
  /** an expected upload whose creation failed */
  forget(uploadId: string): void;
  /** bytes of every open upload's chunks */
  totalBytes(): number;
  /** seeds from the unfinished-uploads read model, then follows the event store */
  start(): Promise<void>;
  stop(): Promise<void>;
}

interface Open {
  client: string;
  bytes: number;
  owned: boolean;
  /** the last event applied */
  position: bigint;
}

const NOTHING: UploadUsage = { uploads: 0, bytes: 0, headerlessExcess: 0 };
const ENDS: ReadonlySet<string> = new Set(['UploadFinalized', 'UploadInvalid', 'UploadExpired']);

/**
 * What every client holds in open multi-part uploads, in memory, kept current from the event store: a
 * new upload, a chunk, an end each cost the same whatever the number of uploads (a periodic rescan of
 * the read models cost as much as the uploads held, and stalled every request while it ran).
 *
 * It starts from the unfinished-uploads read model, whose documents carry the position they reflect,
 * and follows `$all` from that model's checkpoint: an event a document already reflects is skipped, so
 * nothing is counted twice however the scan and the projector interleave. Every process keeps its own
 * tally of the same events, so split command replicas agree.
 */
export function createUploadTally(deps: {
  eventStore: Pick<EventStore, 'subscribeToAll'>;
  readStore: Pick<ReadStore, 'scan' | 'getCheckpoint'>;
  /** what an upload with no header chunk holds without counting as excess (FREE_UPLOAD_LIMIT_BYTES) */
  freeBytes: number;
  log?: (message: string, error?: unknown) => void;
  retryMs?: number;
}): UploadTally {
  const { log = () => {}, retryMs = 1_000 } = deps;
  const open = new Map<string, Open>();
  const clients = new Map<string, UploadUsage>();
  const expected = new Map<string, string>();
  let total = 0;
  let subscription: Subscription | undefined;
  let following: Promise<void> | undefined;
  let stopped = false;

  function adjust(entry: Open, sign: 1 | -1) {
    const usage = clients.get(entry.client) ?? { ...NOTHING };
    usage.uploads += sign;
    usage.bytes += sign * entry.bytes;
    if (!entry.owned) usage.headerlessExcess += sign * Math.max(0, entry.bytes - deps.freeBytes);
    total += sign * entry.bytes;
    if (usage.uploads === 0) clients.delete(entry.client);
    else clients.set(entry.client, usage);
  }

  function put(id: string, entry: Open) {
    const before = open.get(id);
    if (before) adjust(before, -1);
    open.set(id, entry);
    adjust(entry, 1);
  }

  function apply(event: UploadEvent, recorded: RecordedEvent) {
    const id = event.data.uploadId;
    const entry = open.get(id);
    if (event.type === 'UploadCreated') {
      forget(id);
      if (!entry) put(id, { client: clientKeyOf(recorded.metadata.clientAddress), bytes: 0, owned: false, position: recorded.position });
      return;
    }
    // created before the read model's checkpoint and ended before its scan: nothing of it is held
    if (!entry || entry.position >= recorded.position) return;
    if (ENDS.has(event.type)) {
      adjust(entry, -1);
      open.delete(id);
      return;
    }
    if (event.type !== 'ChunkReceived') {
      entry.position = recorded.position;
      return;
    }
    const { offset, length, replaced } = event.data;
    const owned = offset === 0 ? headerChunkNamesOwner(event.data) : entry.owned;
    put(id, { ...entry, bytes: entry.bytes + length - (replaced?.length ?? 0), owned, position: recorded.position });
  }

  function forget(id: string) {
    const client = expected.get(id);
    if (client === undefined) return;
    expected.delete(id);
    adjust({ client, bytes: 0, owned: true, position: 0n }, -1);
  }

  async function follow(after: bigint | undefined) {
    let last = after;
    while (!stopped) {
      try {
        subscription = deps.eventStore.subscribeToAll(last === undefined ? {} : { after: last });
        if (stopped) break;
        for await (const recorded of subscription) {
          last = recorded.position;
          // the type first: most events are no upload's, and not worth parsing
          if (!isUploadEvent(recorded)) continue;
          const event = fromRecorded(recorded);
          if (event && isUploadEvent(event)) apply(event, recorded);
        }
      } catch (error) {
        if (stopped) break;
        log('upload tally: following the event store failed, trying again', error);
        await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
      }
    }
  }

  return {
    usage: (client) => ({ ...(clients.get(client) ?? NOTHING) }),
    clientOf: (uploadId) => open.get(uploadId)?.client,
    expect(uploadId, client) {
      if (expected.has(uploadId) || open.has(uploadId)) return;
      expected.set(uploadId, client);
      adjust({ client, bytes: 0, owned: true, position: 0n }, 1);
    },
    forget,
    totalBytes: () => total,
    async start() {
      const checkpoint = await deps.readStore.getCheckpoint(checkpointOf(unfinishedUploadsProjection));
      const collection = collectionOf(unfinishedUploadsProjection);
      let afterId: string | undefined;
      for (;;) {
        const page = await deps.readStore.scan<UnfinishedUpload>(collection, { ...(afterId ? { afterId } : {}), limit: 1000 });
        for (const { id, doc, position } of page) {
          put(id, { client: doc.client, bytes: doc.bytes, owned: doc.owned === true, position });
        }
        if (page.length < 1000) break;
        afterId = page[page.length - 1]!.id;
      }
      following = follow(checkpoint);
    },
    async stop() {
      stopped = true;
      await subscription?.close();
      await following;
    },
  };
}
