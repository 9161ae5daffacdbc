/**
 * A step whose failure is dropped on purpose: a cleanup after a failure that is already being reported,
 * a release something else redoes, a look that may find nothing. `why` says why losing its error is safe;
 * it is for the reader (and a search for `bestEffort(`), the code does nothing with it. Resolves to the
 * step's value, or to undefined when it failed; never rejects.
 */
export function bestEffort<T>(step: Promise<T>, why: string): Promise<T | undefined> {
  return step.catch(() => undefined);
}
