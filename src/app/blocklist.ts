import type { EventStore } from '../ports/eventStore.js';
import { Forbidden } from '../domain/errors.js';
import { ed25519KeyAddresses, ownerAddressesOf, type VerifiedHeader } from '../verify/index.js';
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
  /**
   * whether `address` (a canonical account key) is blocked now: listed, or an address of an ed25519
   * key that a listed address spells (its accounts under types 2, 4 and 5 alike)
   */
  has(address: string): boolean;
  /** whether nothing is blocked now (checks that cost more than a lookup are skipped then) */
  isEmpty(): boolean;
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
  let blocked: ReadonlySet<string> = new Set();
  // each listed address with those it stands for, kept while listed: a refresh decodes only new ones
  const standsFor = new Map<string, readonly string[]>();
  const adopt = (next: BlocklistState) => {
    const all = new Set<string>();
    for (const address of next.keys()) {
      let addresses = standsFor.get(address);
      if (!addresses) standsFor.set(address, (addresses = [address, ...ed25519KeyAddresses(address)]));
      for (const a of addresses) all.add(a);
    }
    for (const address of standsFor.keys()) if (!next.has(address)) standsFor.delete(address);
    state = next;
    blocked = all;
  };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let failing = false;

  const refresh = async () => {
    adopt(await repository.read(BLOCKLIST_KEY));
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
    has: (address) => blocked.has(address),
    isEmpty: () => state.size === 0,
    list: () => [...state].map(([address, block]) => ({ address, ...block })),
    async execute(command, metadata) {
      const result = await repository.execute(command, metadata);
      adopt(result.state);
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

/** what the upload paths ask of the block list */
export type BlockCheck = Pick<Blocklist, 'has' | 'isEmpty'>;

/** An item's owner as a header names it: every address of its key is checked (ownerAddresses). */
export type OwnerHeader = Pick<VerifiedHeader, 'signatureType' | 'ownerPublicKey' | 'signature'>;

/** the first of `addresses` that is blocked, if any */
export const blockedOf = (blocklist: Pick<Blocklist, 'has'>, addresses: readonly string[]): string | undefined => addresses.find((a) => blocklist.has(a));

/**
 * Refuses (403 `Forbidden`) an upload whose owner or any payer it names is blocked. `owner` is
 * undefined while the item's header has not arrived: then only the payers are checked. A header is
 * checked by every address of its key; a bare native address (an upload's recorded owner) by itself.
 */
export function ensureNotBlocked(blocklist: BlockCheck | undefined, who: { owner?: string | OwnerHeader | undefined; paidBy?: readonly string[] }): void {
  if (!blocklist || blocklist.isEmpty()) return;
  const { owner } = who;
  if (owner !== undefined) {
    const blocked = blockedOf(blocklist, typeof owner === 'string' ? [owner] : ownerAddressesOf(owner));
    if (blocked !== undefined) throw new Forbidden(`owner ${blocked} is blocked`);
  }
  for (const payer of who.paidBy ?? []) if (blocklist.has(payer)) throw new Forbidden(`payer ${payer} is blocked`);
}
