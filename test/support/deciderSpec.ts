import { expect } from 'chai';

/** A decider as the specs see it: the state a stream's events fold to, and what a command decides on it. */
export interface SpecDecider<C, E, S> {
  initialState: S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}

/**
 * Given/when/then for deciders: given the events already on the stream, when a command arrives, then
 * exactly these events are decided (or none, or this error is thrown). The state is only ever the
 * fold of events, as the repository builds it, so a spec cannot start from a state no stream has.
 *
 *   const spec = deciderSpec({ initialState, evolve, decide });
 *   spec.given([created]).when(receive).then([chunkReceived]);
 */
export function deciderSpec<C, E, S>(decider: SpecDecider<C, E, S>) {
  return {
    given(events: readonly E[]) {
      const state = events.reduce(decider.evolve, decider.initialState);
      return {
        when(command: C) {
          const decide = () => decider.decide(command, state);
          return {
            then(expected: readonly E[]): void {
              expect(decide()).to.deep.equal(expected);
            },
            thenNothing(): void {
              expect(decide()).to.deep.equal([]);
            },
            thenThrows(error: abstract new (...args: never[]) => Error, message?: string | RegExp): void {
              expect(decide).to.throw(error as unknown as ErrorConstructor, message);
            },
          };
        },
      };
    },
  };
}
