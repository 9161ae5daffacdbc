/**
 * Port errors are recognised by a brand, never by `instanceof`. The same module can be loaded
 * twice in one process (mocha loads a dynamically imported adapter as a second copy; a bundler or
 * two installed versions can do the same): an error made with the other copy's class fails
 * `instanceof`, and a duplicate upload that lost its race answered 500 instead of 202. The brand is
 * a property keyed by a registered symbol (`Symbol.for`), the same in every copy, and not enumerable,
 * so it shows in no log, JSON or deep comparison.
 *
 *   const brand = portErrorBrand<WrongExpectedRevision>('WrongExpectedRevision');
 *   class WrongExpectedRevision extends Error { static is = brand.is; constructor() { super(); brand.mark(this); } }
 *   if (WrongExpectedRevision.is(error)) ...
 *
 * A subclass marks its instances with its own brand as well as, through `super`, its parent's.
 */
export interface PortErrorBrand<T extends Error> {
  mark(error: T): void;
  is(error: unknown): error is T;
}

export function portErrorBrand<T extends Error>(name: string): PortErrorBrand<T> {
  const key = Symbol.for(`arweave-upload-service.port-error.${name}`);
  return {
    mark: (error) => void Object.defineProperty(error, key, { value: true, enumerable: false }),
    is: (error): error is T => typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[key] === true,
  };
}
