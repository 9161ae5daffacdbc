import type { EventMetadata, EventStore } from '../../ports/eventStore.js';
import type { ReadStore } from '../../ports/readStore.js';
import { canonicalTopUpToken, type Transfer, type TransferSource } from '../../ports/transfers.js';
import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import { InvalidToken, InvalidTransaction, ServiceUnavailable } from '../../domain/errors.js';
import type { OnChainTransfer } from '../../domain/account/events.js';
import { decideTopUp, evolveTopUp, initialTopUpState, keyOfTopUp, type TopUpCommand, type TopUpState } from '../../domain/topUp/decider.js';
import { isTopUpEvent, type TopUpClaimed, type TopUpEvent } from '../../domain/topUp/events.js';
import { canonicalTransferId, creditIdOfTransfer, topUpStream } from '../../domain/topUp/ids.js';
import { createLru } from '../../lru.js';
import { collectionOf, pendingTopUpsProjection, type PendingTopUp } from '../../../projections/index.js';
import type { AccountRepository } from './accounts.js';
import { AggregateRepository } from '../aggregateRepository.js';

/** Claimed transfers by chain and transaction id; see AggregateRepository. */
export class TopUpRepository extends AggregateRepository<TopUpState, TopUpCommand, TopUpEvent> {
  constructor(eventStore: EventStore) {
    super(eventStore, {
      initialState: initialTopUpState,
      evolve: evolveTopUp,
      decide: decideTopUp,
      isEvent: isTopUpEvent,
      keyOf: keyOfTopUp,
      stream: topUpStream,
    });
  }
}

/** A chain the service takes top-ups on. */
export interface TopUpChain {
  source: TransferSource;
  /** the service's address there, as `/info` names it (and as accounts are keyed) */
  address: string;
  /** a transfer with fewer confirmations is claimed but credited only once it has them */
  minConfirmations: number;
  /** winc credited for one whole token (1 AR, 1 ETH) */
  wincPerToken: bigint;
  /** base units in one whole token (10^12 winston, 10^18 wei) */
  unitsPerToken: bigint;
  /** asks the chain's endpoint whether it is the configured chain (an EVM chain with a chain id): WrongChain when not */
  checkChain?(): Promise<void>;
}

export interface TopUpDeps {
  chains: ReadonlyMap<string, TopUpChain>;
  topUps: Pick<TopUpRepository, 'execute'>;
  accounts: Pick<AccountRepository, 'execute' | 'read'>;
  readStore: Pick<ReadStore, 'scan'>;
  now: () => number;
  /** a pending claim whose transaction the chain no longer knows expires this long after it was made */
  pendingMaxAgeMs: number;
  /**
   * a transaction the chain does not know is answered from memory this long (0: never), so that
   * claims of it again do not each cost a request to the chain's provider
   */
  unknownTxCacheMs?: number;
  /** a monotonic clock in ms (default performance.now): the unknown transactions' ages */
  monotonicNow?: () => number;
  /** in one process, waits until the read models show the credit (so a balance right after shows it) */
  awaitProjection?: (position: bigint) => Promise<unknown>;
  log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface TopUpOutcome {
  claim: TopUpClaimed['data'];
  /** credited now; false: claimed, credited once the transaction has its confirmations */
  confirmed: boolean;
  /** the block it was credited in, when credited */
  blockHeight?: number;
}

/** what `quantity` base units are worth: rounded down, so no winc is credited that was not paid */
export const wincOf = (chain: Pick<TopUpChain, 'wincPerToken' | 'unitsPerToken'>, quantity: bigint): bigint =>
  (quantity * chain.wincPerToken) / chain.unitsPerToken;

/** distinct unknown transactions remembered at once: a client naming ever new ones evicts the oldest */
const UNKNOWN_TX_CACHE_ENTRIES = 10_000;

const confirmedEnough = (chain: TopUpChain, transfer: Transfer) => transfer.status.confirmed && transfer.status.confirmations >= chain.minConfirmations;

/** the transfer as its chain tells it (asked with the canonical id): unreadable, ServiceUnavailable; undefined when unknown */
async function readChain(chain: TopUpChain, txId: string): Promise<Transfer | undefined> {
  let transfer: Transfer | undefined;
  try {
    transfer = await chain.source.transfer(txId);
  } catch (error) {
    if (GatewayRequestError.is(error)) throw new ServiceUnavailable(`the chain could not be read: ${error.message}`);
    throw error;
  }
  // the adapters compare the chain's answer with the id asked; checked here too, as money depends on it
  if (transfer && transfer.txId !== txId) throw new ServiceUnavailable(`the chain answered transaction ${transfer.txId} for ${txId}`);
  return transfer;
}

/** credits the claim's account with its winc, once (the credit id names the transfer), and waits for it to be projected */
async function credit(
  deps: TopUpDeps,
  claim: PendingTopUp | TopUpClaimed['data'],
  transfer: Transfer & { status: { confirmed: true } },
  target: string,
  metadata: Omit<EventMetadata, 'schemaVersion'>,
) {
  const onChain: OnChainTransfer = {
    token: claim.token,
    txId: claim.txId,
    sender: transfer.sender,
    target,
    quantity: transfer.quantity.toString(),
    blockHeight: transfer.status.blockHeight,
  };
  const { position } = await deps.accounts.execute(
    {
      type: 'Credit',
      data: { address: claim.address, winc: BigInt(claim.winc), creditId: creditIdOfTransfer(claim.token, claim.txId), onChain, now: deps.now() },
    },
    metadata,
  );
  if (position !== undefined) await deps.awaitProjection?.(position);
}

/**
 * Top-ups with the user's own tokens: a claim reads the transaction from its chain, records the claim
 * once per transaction (its own stream) and credits the account once it is confirmed enough, with
 * the chain and transaction id as credit id (once per account). The pass (`creditPending`) credits
 * claims still pending, and any claim whose credit a crash cut off.
 */
export function createTopUps(deps: TopUpDeps) {
  const monotonicNow = deps.monotonicNow ?? (() => performance.now());
  const unknownTxCacheMs = deps.unknownTxCacheMs ?? 0;
  /** when each transaction lately found unknown may be asked again, by credit id */
  const unknownUntil = createLru<string, number>(UNKNOWN_TX_CACHE_ENTRIES);
  /** reads in flight, by credit id: claims of one transaction at once cost the chain one read */
  const reading = new Map<string, Promise<Transfer | undefined>>();

  /** the transfer as `token`'s chain tells it, asked with the canonical id; undefined when unknown */
  async function read(chain: TopUpChain, token: string, txId: string): Promise<Transfer | undefined> {
    const key = creditIdOfTransfer(token, txId);
    const until = unknownUntil.get(key);
    if (until !== undefined && monotonicNow() < until) return undefined;
    let pending = reading.get(key);
    if (!pending) {
      pending = readChain(chain, txId).finally(() => reading.delete(key));
      reading.set(key, pending);
    }
    const transfer = await pending;
    if (!transfer && unknownTxCacheMs > 0) unknownUntil.set(key, monotonicNow() + unknownTxCacheMs);
    return transfer;
  }

  return {
    /** the tokens top-ups are taken in */
    tokens: (): string[] => [...deps.chains.keys()],

    /**
     * `named`: the token as the client named it; `spelled`: the transaction id as the client wrote it; the claim is of its canonical spelling
     * (any other spelling of one transaction is the same claim), one that has none is refused.
     */
    async claim(named: string, spelled: string, metadata: Omit<EventMetadata, 'schemaVersion'>): Promise<TopUpOutcome> {
      // `pol` and `matic` name one chain: one claim per transaction whichever name it came under
      const token = canonicalTopUpToken(named);
      const chain = deps.chains.get(token);
      if (!chain) throw new InvalidToken(`no top-ups in ${token}`);
      const txId = canonicalTransferId(token, spelled);
      if (txId === undefined) throw new InvalidTransaction(`${spelled} is no ${token} transaction id`);
      const transfer = await read(chain, token, txId);
      if (!transfer) throw new InvalidTransaction(`${token} transaction ${txId} is unknown`);
      if (transfer.target !== chain.address)
        throw new InvalidTransaction(`${token} transaction ${txId} went to ${transfer.target ?? 'no address'}, not ${chain.address}`);
      if (transfer.failed) throw new InvalidTransaction(`${token} transaction ${txId} failed on chain`);
      const winc = wincOf(chain, transfer.quantity);
      const address = transfer.creditTo ?? transfer.sender;
      // a claim stored by an earlier version under another spelling is in a stream of that name: its
      // credit, upcast to the canonical credit id, is what shows that this transaction was credited
      if ((await deps.accounts.read(address)).creditIds.has(creditIdOfTransfer(token, txId))) {
        throw new InvalidTransaction(`${token} transaction ${txId} was already credited to ${address}`);
      }
      const claim: TopUpClaimed['data'] = {
        token,
        txId,
        sender: transfer.sender,
        address,
        target: chain.address,
        quantity: transfer.quantity.toString(),
        winc: winc.toString(),
        confirmed: confirmedEnough(chain, transfer),
        timestamp: deps.now(),
      };
      // throws Invalid transaction when it was claimed before, or is worth nothing
      const { position } = await deps.topUps.execute({ type: 'Claim', data: claim }, metadata);
      if (!claim.confirmed || !transfer.status.confirmed) {
        // answered once the claim is among the pending ones (the pass, the history), as a credit is once credited
        if (position !== undefined) await deps.awaitProjection?.(position);
        return { claim, confirmed: false };
      }
      await credit(deps, claim, { ...transfer, status: transfer.status }, chain.address, metadata);
      return { claim, confirmed: true, blockHeight: transfer.status.blockHeight };
    },

    /**
     * Credits the claims whose transactions now have their confirmations. A claim whose transaction
     * the chain does not know (never mined, dropped) stays pending, and expires once older than
     * `pendingMaxAgeMs` (it may then be claimed again); one the chain shows otherwise than as a
     * transfer to the service is logged and credits nothing.
     */
    async creditPending(): Promise<{ credited: number; pending: number; expired: number }> {
      const result = { credited: 0, pending: 0, expired: 0 };
      const collection = collectionOf(pendingTopUpsProjection);
      let afterId: string | undefined;
      for (;;) {
        const page = await deps.readStore.scan<PendingTopUp>(collection, { ...(afterId ? { afterId } : {}), limit: 200 });
        for (const { doc } of page) {
          const chain = deps.chains.get(doc.token);
          let transfer: Transfer | undefined;
          try {
            transfer = chain ? await readChain(chain, doc.txId) : undefined;
          } catch (error) {
            // a chain that cannot be read now holds up its own claims only: the next pass reads them again
            if (!(error instanceof ServiceUnavailable)) throw error;
            deps.log?.('top-up claim not checked: the chain could not be read', { token: doc.token, txId: doc.txId, error: error.detail });
            result.pending += 1;
            continue;
          }
          if (chain && !transfer && deps.now() - doc.timestamp > deps.pendingMaxAgeMs) {
            const { events } = await deps.topUps.execute(
              { type: 'Expire', data: { token: doc.token, txId: doc.txId, now: deps.now() } },
              { correlationId: 'top-up-pass' },
            );
            if (events.length > 0) result.expired += 1;
            continue;
          }
          if (!chain || !transfer || transfer.target !== chain.address || transfer.failed) {
            deps.log?.('top-up claim no longer a transfer to the service: not credited', { token: doc.token, txId: doc.txId, address: doc.address });
            result.pending += 1;
            continue;
          }
          if (!confirmedEnough(chain, transfer) || !transfer.status.confirmed) {
            result.pending += 1;
            continue;
          }
          await credit(deps, doc, { ...transfer, status: transfer.status }, chain.address, { correlationId: 'top-up-pass' });
          result.credited += 1;
        }
        if (page.length < 200) return result;
        afterId = page[page.length - 1]!.id;
      }
    },
  };
}

export type TopUps = ReturnType<typeof createTopUps>;
