import type { EventStore } from '../ports/eventStore.js';
import { Forbidden } from '../domain/errors.js';
import {
  BLOCKLIST_KEY,
  blocklistStream,
  decideBlocklist,
  evolveBlocklist,
  initialBlocklistState,
  type Block,
  type BlocklistCommand,
  type BlocklistState,
} from '../domain/blocklist/decider.js';
import { isBlocklistEvent, type BlocklistEvent } from '../domain/blocklist/events.js';
import { AggregateRepository, type CommandResult } from './aggregateRepository.js';

export type BlocklistCommandResult = CommandResult<BlocklistState, BlocklistEvent>;

/** The block list's one stream; see AggregateRepository for locking and retries across processes. */
export class BlocklistRepository extends AggregateRepository<BlocklistState, BlocklistCommand, BlocklistEvent> {
  constructor(eventStore: EventStore) {
    super(eventStore, {
      initialState: initialBlocklistState,
      evolve: evolveBlocklist,
      decide: decideBlocklist,
      isEvent: isBlocklistEvent,
      keyOf: () => BLOCKLIST_KEY,
      stream: blocklistStream,
    });
  }
}

export interface BlockEntry extends Block {
  address: string;
}

/**
 * The block list as every process that takes uploads sees it: held in memory, so the check on the
 * upload path costs a map lookup. It reads the stream's new events every `refreshMs` (a block made by
 * the CLI, or by another replica, is seen within that), and at once after a change made through this
 * process (`execute`).
 */
export interface Blocklist {
  /** whether `address` (a canonical account key) is blocked now */
  has(address: string): boolean;
  /** the blocked addresses, in the order they were blocked */
  list(): BlockEntry[];
  /** blocks or unblocks (a repeat changes nothing) and applies the result here at once */
  execute(command: BlocklistCommand, metadata: Parameters<BlocklistRepository['execute']>[1]): Promise<BlocklistCommandResult>;
  /** reads the stream's new events now */
  refresh(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createBlocklist(deps: { eventStore: EventStore; refreshMs?: number; log?: (message: string, error?: unknown) => void }): Blocklist {
  const { refreshMs = 1_000, log = () => {} } = deps;
  const repository = new BlocklistRepository(deps.eventStore);
  let state: BlocklistState = initialBlocklistState;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let failing = false;

  const refresh = async () => {
    state = await repository.read(BLOCKLIST_KEY);
  };
  const tick = () => {
    running = refresh()
      .then(() => {
        failing = false;
      })
      .catch((error: unknown) => {
        // logged once per outage; the last state read stays in force meanwhile
        if (!failing) log('block list: reading its stream failed, trying again', error);
        failing = true;
      })
      .finally(() => {
        running = undefined;
        if (timer) timer.refresh();
      });
  };

  return {
    has: (address) => state.has(address),
    list: () => [...state].map(([address, block]) => ({ address, ...block })),
    async execute(command, metadata) {
      const result = await repository.execute(command, metadata);
      state = result.state;
      return result;
    },
    refresh,
    async start() {
      await refresh();
      timer = setTimeout(function again() {
        tick();
      }, refreshMs);
      timer.unref();
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}

/**
 * Refuses (403 `Forbidden`) an upload whose owner or any payer it names is blocked. `owner` is
 * undefined while the item's header has not arrived: then only the payers are checked.
 */
export function ensureNotBlocked(blocklist: Pick<Blocklist, 'has'> | undefined, who: { owner?: string | undefined; paidBy?: readonly string[] }): void {
  if (!blocklist) return;
  if (who.owner !== undefined && blocklist.has(who.owner)) throw new Forbidden(`owner ${who.owner} is blocked`);
  for (const payer of who.paidBy ?? []) if (blocklist.has(payer)) throw new Forbidden(`payer ${payer} is blocked`);
}
