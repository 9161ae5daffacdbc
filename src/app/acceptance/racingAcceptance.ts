import { setTimeout as sleep } from 'node:timers/promises';
import { InsufficientBalance } from '../../domain/errors.js';
import { holdsReservationFor } from '../../domain/account/state.js';
import type { DataItemState } from '../../domain/dataItem/decider.js';
import type { AccountRepository } from '../accounts/accounts.js';
import { reservePayment, type Payment } from '../accounts/payments.js';

/**
 * The same paid item sent twice at once (a client retrying a slow request, two tabs) by a payer who
 * can pay for it once: the second upload's reservation fails while the first still holds the
 * credits between its reservation and its acceptance. That is no lack of funds: the second upload
 * waits for the first and answers like any re-sent item (202 with the original receipt).
 */

type Accepted = Extract<DataItemState, { status: 'accepted' }>;

export interface RacingDeps {
  accounts: AccountRepository;
  /** the item's state, read from its own stream */
  loadItem(): Promise<DataItemState>;
  now(): number;
  /**
   * How long to wait for the other upload. It needs a blob rename, a receipt signature and an
   * append: well under a second unless the service is overloaded. Past this the answer is 402,
   * as it would have been without the wait.
   */
  waitMs?: number;
}

export interface ReserveRequest {
  owner: string;
  paidBy: readonly string[];
  winc: bigint;
  dataItemId: string;
  ctx: Parameters<typeof reservePayment>[1]['ctx'];
}

export type Reserved = { kind: 'reserved'; payment: Payment } | { kind: 'accepted'; state: Accepted };

const DEFAULT_WAIT_MS = 30_000;

/**
 * Reserves the price as `reservePayment` does; when nobody can pay because another upload of the
 * same item holds a reservation for it, waits (bounded) for that upload: accepted, its state; gave
 * its reservation back without accepting, a new try to reserve. Otherwise InsufficientBalance.
 */
export async function reserveOrAwaitRacing(deps: RacingDeps, request: ReserveRequest): Promise<Reserved> {
  const deadline = performance.now() + (deps.waitMs ?? DEFAULT_WAIT_MS);
  let triedAgain = false;
  for (;;) {
    try {
      return { kind: 'reserved', payment: await reservePayment(deps.accounts, { ...request, now: deps.now() }) };
    } catch (error) {
      if (!(error instanceof InsufficientBalance)) throw error;
      const racing = await awaitRacingUpload(deps, request, deadline);
      if (racing.kind === 'accepted') return racing;
      // The other upload gave its reservation back unaccepted, so the credits may be free again. It
      // may have done so before it was looked for ('none'): one more try then, not a loop.
      if (racing.kind === 'timeout' || (racing.kind === 'none' && triedAgain)) throw error;
      if (racing.kind === 'none') triedAgain = true;
    }
  }
}

/**
 * Whether an upload of this item is accepted or under way (a reservation for it is open on one of
 * its possible payers), so that refusing another upload of it for lack of funds would be wrong.
 */
export async function acceptanceUnderWay(
  deps: Pick<RacingDeps, 'accounts' | 'loadItem'>,
  request: Pick<ReserveRequest, 'owner' | 'paidBy' | 'dataItemId'>,
): Promise<boolean> {
  // The reservation first, the item second: an upload settles only after its acceptance is
  // appended, so a reservation gone by the first read is either given back unaccepted or settled
  // for an acceptance the second read sees. (The other order misses an upload that accepts and
  // settles between the two reads.)
  return (await reservationHeld(deps.accounts, request)) || (await deps.loadItem()).status === 'accepted';
}

type Racing = { kind: 'accepted'; state: Accepted } | { kind: 'none' | 'ended' | 'timeout' };

async function awaitRacingUpload(deps: RacingDeps, request: ReserveRequest, deadline: number): Promise<Racing> {
  let seen = false;
  for (let pause = 10; ; pause = Math.min(2 * pause, 200)) {
    const item = await deps.loadItem();
    if (item.status === 'accepted') return { kind: 'accepted', state: item };
    if (!(await reservationHeld(deps.accounts, request))) {
      // An upload settles only after its acceptance is appended: a reservation settled since the
      // read above means the item is accepted now.
      const again = await deps.loadItem();
      if (again.status === 'accepted') return { kind: 'accepted', state: again };
      return { kind: seen ? 'ended' : 'none' };
    }
    seen = true;
    if (performance.now() >= deadline) return { kind: 'timeout' };
    await sleep(pause);
  }
}

/** a reservation for the item open on the owner's account or a listed payer's (ours failed: it is another upload's) */
async function reservationHeld(accounts: AccountRepository, request: Pick<ReserveRequest, 'owner' | 'paidBy' | 'dataItemId'>): Promise<boolean> {
  const payers = new Set([...request.paidBy, request.owner]);
  for (const payer of payers) {
    if (holdsReservationFor(await accounts.read(payer), request.dataItemId)) return true;
  }
  return false;
}
