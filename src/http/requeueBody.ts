import type { z } from 'zod';
import type { RequeueOutcome } from '../app/requeueItems.js';
import type { RequeueAnswerBody } from './openapi/bodies.js';

/** What the admin API answers to a requeue (and the CLI prints with `--json`). */
export function requeueBody(outcome: RequeueOutcome): z.infer<typeof RequeueAnswerBody> {
  return outcome.requeued
    ? { id: outcome.id, requeued: true, previousFailure: outcome.previousFailure }
    : { id: outcome.id, requeued: false, already: { by: outcome.already.by, reason: outcome.already.reason, at: new Date(outcome.already.at).toISOString() } };
}
