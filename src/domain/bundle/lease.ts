import { z } from 'zod';
import { streamName, type StreamName } from '../../ports/eventStore.js';

/**
 * The bundler's fencing tokens. The lease in the read store says which instance should bundle; it
 * cannot stop an instance that lost it without knowing (paused past its expiry: a GC pause, a slow
 * disk) from writing on resuming. So each instance that becomes the active bundler records a take
 * here, in the event store itself, and its token (the take's revision) is strictly greater than
 * every earlier holder's. The token lives with the events it fences, so it survives a read store
 * rebuilt from scratch, where a counter kept beside the lease would start again below them.
 */
export const bundlerLeaseStream: StreamName = streamName('lease-bundler');

export const BundlerLeaseTaken = z.object({
  type: z.literal('BundlerLeaseTaken'),
  data: z.object({
    /** the instance that became the active bundler */
    holder: z.string(),
    /** its fencing token: this event's revision in the lease stream */
    token: z.number().int().nonnegative(),
    timestamp: z.number().int(),
  }),
});

export const LeaseEvent = z.discriminatedUnion('type', [BundlerLeaseTaken]);
export type LeaseEvent = z.infer<typeof LeaseEvent>;

/** A bundler command under a token older than a later holder's: the instance lost its lease. */
export class LeaseLost extends Error {
  override readonly name = 'LeaseLost';
}
