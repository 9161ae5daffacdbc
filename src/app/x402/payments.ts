import type { EventStore } from '../../ports/eventStore.js';
import {
  decideX402Payment,
  evolveX402Payment,
  initialX402PaymentState,
  keyOfX402Payment,
  x402PaymentStream,
  type X402PaymentCommand,
  type X402PaymentState,
} from '../../domain/x402/decider.js';
import { isX402PaymentEvent, type X402PaymentEvent } from '../../domain/x402/events.js';
import { AggregateRepository } from '../aggregateRepository.js';

/** x402 payments by payment id (network, payer, nonce); see AggregateRepository. */
export class X402PaymentRepository extends AggregateRepository<X402PaymentState, X402PaymentCommand, X402PaymentEvent> {
  constructor(eventStore: EventStore) {
    super(eventStore, {
      initialState: initialX402PaymentState,
      evolve: evolveX402Payment,
      decide: decideX402Payment,
      isEvent: isX402PaymentEvent,
      keyOf: keyOfX402Payment,
      stream: x402PaymentStream,
    });
  }
}
