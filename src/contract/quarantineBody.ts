import type { HoldOutcome, ReleaseOutcome } from '../app/quarantine.js';

/** The bodies of the quarantine routes (http/openapi/bodies.ts HoldAnswer, ReleaseAnswer), shared with the CLI's --json. */

const iso = (ms: number) => new Date(ms).toISOString();

export function holdAnswerBody(outcome: HoldOutcome) {
  return outcome.held
    ? { id: outcome.id, held: true, at: iso(outcome.at), ...(outcome.droppedPlan !== undefined ? { droppedPlan: outcome.droppedPlan } : {}) }
    : { id: outcome.id, held: false, already: { by: outcome.already.by, reason: outcome.already.reason, at: iso(outcome.already.at) } };
}

export const releaseAnswerBody = (outcome: ReleaseOutcome) => ({ id: outcome.id, released: outcome.released });
