import { bundlerLeaseStream, LeaseLost } from '../../domain/bundle/lease.js';
import { toNewEvent } from '../../domain/events.js';
import { newEventId } from '../../domain/ids.js';
import { WrongExpectedRevision, type EventStore } from '../../ports/eventStore.js';
import type { BundleRepository } from '../bundles.js';
import { BUNDLER } from './metadata.js';

export type Bundles = Pick<BundleRepository, 'read' | 'execute'>;

/**
 * This instance's fencing token for the bundler lease (see src/domain/bundle/lease.ts): taken when
 * it becomes the active bundler, dropped when the lease says another is.
 *
 * Why a paused holder cannot write over its successor: the successor takes the lease only after it
 * expired, then records a take with a greater token before its first bundle command. Every bundle
 * command of an instance carries its token and, just before the append, `check` reads whether a
 * take followed its own: if one did, the append does not happen. Left is the instant between that
 * read and the append, and there the bundle's stream decides: an append states the revision its
 * decision read, so if the successor wrote to the stream meanwhile the append is refused, read
 * again, and the decider now sees the successor's greater token on the stream and refuses the
 * command. Only an append the successor has not yet contested goes in, as a step valid for the
 * stream as it stands, and the successor reads it before its own next step.
 *
 * What the bundler writes on items' streams (an item FAILED, its bytes found damaged) goes through
 * the same check before each append (`fenceCheck`); those events say the same whoever records them,
 * and the item's decider records each once.
 */
export class LeaseFence {
  #token: number | undefined;

  constructor(
    private readonly eventStore: EventStore,
    private readonly holder: string,
    private readonly now: () => number,
  ) {}

  get token(): number | undefined {
    return this.#token;
  }

  /**
   * Called once the lease says this instance holds it: keeps its token, or records a take with the
   * next one. False when another instance recorded a take at the same moment (it goes on, this one waits).
   */
  async take(): Promise<boolean> {
    if (this.#token !== undefined) return true;
    let last = -1n;
    for await (const recorded of this.eventStore.readStream(bundlerLeaseStream)) last = recorded.revision;
    const token = Number(last + 1n);
    const event = { type: 'BundlerLeaseTaken' as const, data: { holder: this.holder, token, timestamp: this.now() } };
    try {
      await this.eventStore.append(bundlerLeaseStream, [toNewEvent(event, newEventId(), BUNDLER)], last < 0n ? 'no_stream' : last);
    } catch (error) {
      if (WrongExpectedRevision.is(error)) return false;
      throw error;
    }
    this.#token = token;
    return true;
  }

  /** the lease says another instance holds it */
  release(): void {
    this.#token = undefined;
  }

  /** throws LeaseLost unless this instance's take is still the last one recorded */
  async check(): Promise<void> {
    const token = this.#token;
    if (token === undefined) throw new LeaseLost(`${this.holder} does not hold the bundler lease`);
    for await (const later of this.eventStore.readStream(bundlerLeaseStream, { fromRevision: BigInt(token) + 1n, maxCount: 1 })) {
      this.#token = undefined;
      throw new LeaseLost(`${this.holder} (fencing token ${token}) was succeeded by fencing token ${String(later.revision)}`);
    }
  }

  /** the repository with every command under this instance's token, checked just before each append */
  fenced(bundles: Bundles): Bundles {
    return {
      read: (planId) => bundles.read(planId),
      execute: (command, metadata) => {
        const fence = this.#token;
        if (fence === undefined) return Promise.reject(new LeaseLost(`${this.holder} does not hold the bundler lease`));
        return bundles.execute({ ...command, data: { ...command.data, fence } } as typeof command, metadata, () => this.check());
      },
    };
  }
}

/** the bundler's fence, checked just before an append to an item's stream (fence.ts); none without a lease */
export const fenceCheck = (deps: { fence?: LeaseFence }): (() => Promise<void>) | undefined => {
  const fence = deps.fence;
  return fence ? () => fence.check() : undefined;
};
