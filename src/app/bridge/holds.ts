import type { RecordedEvent } from '../../ports/eventStore.js';
import { fromRecorded } from '../../domain/events.js';

/**
 * The holds (quarantine) of the uploaded items the bridge has queued, as the events it reads in order
 * say: a `DataItemQuarantined` read while its item waits marks it held, a `DataItemReleased` lifts it.
 * An uploaded item the bridge queued was read from its acceptance or its release, both after the
 * bridge started reading, so every hold of it since is read after it: once the reading has passed the
 * store's head, what this says of such an item is what its stream says, with no read of the stream.
 * (A nested item's root may have been held before the bridge started: its stream is read instead.)
 * Only the items waiting are kept, so memory stays with the queue.
 */
export class ReadHolds {
  /** items waiting (units not done), how many each */
  private readonly waiting = new Map<string, number>();
  private readonly held = new Set<string>();
  /** every event up to here is noted */
  private readThrough: bigint;
  /** the reading waits (for room in the queue) or ended: it passes nothing soon */
  private stalled = false;
  private readonly waiters = new Set<{ position: bigint; settle: (passed: boolean) => void }>();

  constructor(after: bigint) {
    this.readThrough = after;
  }

  /** a unit of the uploaded item `id` (a root) is queued */
  queued(id: string): void {
    this.waiting.set(id, (this.waiting.get(id) ?? 0) + 1);
  }

  /** a unit of `id` is done: once none waits, its hold is forgotten (a release brings it back, read in order) */
  done(id: string): void {
    const left = (this.waiting.get(id) ?? 0) - 1;
    if (left > 0) {
      this.waiting.set(id, left);
      return;
    }
    this.waiting.delete(id);
    this.held.delete(id);
  }

  /** an event read in order (before its items are queued): the holds and releases of waiting items */
  note(recorded: RecordedEvent): void {
    if (recorded.type !== 'DataItemQuarantined' && recorded.type !== 'DataItemReleased') return;
    const event = fromRecorded(recorded);
    if (event?.type === 'DataItemQuarantined' && this.waiting.has(event.data.id)) this.held.add(event.data.id);
    if (event?.type === 'DataItemReleased') this.held.delete(event.data.id);
  }

  /** every event up to `position` is noted */
  passed(position: bigint): void {
    this.readThrough = position;
    for (const waiter of this.waiters) if (waiter.position <= position) waiter.settle(true);
  }

  /** whether the reading waits or ended (then it passes nothing until it goes on: those waiting hear false) */
  stall(stalled: boolean): void {
    this.stalled = stalled;
    if (stalled) for (const waiter of this.waiters) waiter.settle(false);
  }

  /** true once every event up to `position` is noted; false when the reading is stalled or not there within `ms` */
  until(position: bigint, ms: number): Promise<boolean> {
    if (this.readThrough >= position) return Promise.resolve(true);
    if (this.stalled) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        position,
        settle: (passed: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(passed);
        },
      };
      const timer = setTimeout(() => waiter.settle(false), ms);
      this.waiters.add(waiter);
    });
  }

  /** whether the waiting uploaded item `id` is held, as the events noted say */
  isHeld(id: string): boolean {
    return this.held.has(id);
  }
}
