import type { HandledEvent, ProjectionDefinition } from './definition.js';

/**
 * Items FAILED now whose charge has not been refunded for that failure: what the refunder looks at
 * (`src/app/accounts/refunder.ts`). Free items fail too and stay here (nothing to give back); the
 * refunder passes over them after reading the item's stream, which decides. Few documents: failed items.
 */
export interface UnrefundedFailure {
  failedAt: number;
  reason: string;
}

const handles = ['DataItemFailed', 'DataItemRequeued', 'ChargeRefunded'] as const;
type FailureEvent = HandledEvent<typeof handles>;

export const unrefundedFailuresProjection: ProjectionDefinition<UnrefundedFailure, FailureEvent> = {
  name: 'unrefunded-failures',
  version: 1,
  handles,
  documentIds: (event) => [event.type === 'ChargeRefunded' ? event.data.dataItemId : event.data.id],
  // a switch (exhaustive: the return type and the linter's check), as the other small projections
  reduce: (_doc, event): UnrefundedFailure | undefined => {
    switch (event.type) {
      case 'DataItemFailed':
        return { failedAt: event.data.timestamp, reason: event.data.reason };
      case 'DataItemRequeued':
      case 'ChargeRefunded':
        return undefined;
    }
  },
};
