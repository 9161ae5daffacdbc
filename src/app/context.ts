import type { EventMetadata } from '../ports/eventStore.js';

/** Who asked, carried into every event's metadata. */
export interface RequestContext {
  requestId: string;
  clientAddress?: string;
  userAgent?: string;
}

export const metadataOf = (ctx: RequestContext): Omit<EventMetadata, 'schemaVersion'> => ({
  correlationId: ctx.requestId,
  ...(ctx.clientAddress ? { clientAddress: ctx.clientAddress } : {}),
  ...(ctx.userAgent ? { userAgent: ctx.userAgent.slice(0, 256) } : {}),
});
