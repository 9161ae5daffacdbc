import type { ReadStore } from '../ports/readStore.js';
import type { SerializedAccount } from '../domain/account/serialized.js';
import { deserializeAccount } from '../domain/account/serialized.js';
import { availableOf, initialAccountState, reservedOf } from '../domain/account/state.js';
import { InvalidRequest } from '../domain/errors.js';
import type { RsaPrivateJwk } from '../wallet/rsaJwk.js';
import { createStatementSigner } from '../receipts/statementMessage.js';
import {
  accountBalanceProjection,
  accountEntriesProjection,
  accountEntriesStart,
  collectionOf,
  txStatusProjection,
  type AccountEntry,
  type TxStatusDocument,
} from '../../projections/index.js';

export const STATEMENT_MAX_LIMIT = 1000;
export const STATEMENT_DEFAULT_LIMIT = 100;

/** one line of a statement: a credit (`id`: its credit id), or a charge, refund or recharge of item `id` with its state now */
export interface StatementEntry {
  kind: AccountEntry['kind'];
  id: string;
  winc: string;
  timestamp: number;
  /** the item's `GET /tx/:id/status` now (absent for a credit; null when the read model has no such item) */
  item?: { status: TxStatusDocument['status']; info: TxStatusDocument['info'] } | null;
}

export interface AccountStatement {
  address: string;
  /** ms since the epoch when it was made */
  generatedAt: number;
  balance: { winc: string; creditedWinc: string; spentWinc: string; reservedWinc: string };
  entries: StatementEntry[];
  /** the entries follow this cursor (absent: from the first) */
  after?: string;
  /** pass it as `cursor` for the next page; null on the last */
  nextCursor: string | null;
  /** the service wallet's RSA modulus, base64url: its sha256 is the wallet's address (`/info`) */
  public: string;
  signature: string;
}

/** a cursor: the id of the last entry shown, base64url (opaque to clients) */
const cursorOf = (id: string) => Buffer.from(id, 'utf8').toString('base64url');

function afterIdOf(address: string, cursor: string | undefined): string {
  if (cursor === undefined) return accountEntriesStart(address);
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!id.startsWith(accountEntriesStart(address)) || cursorOf(id) !== cursor) throw new InvalidRequest('cursor is not one of this account');
  return id;
}

/**
 * An account's statement, a page at a time (at most `STATEMENT_MAX_LIMIT` entries: memory is one page
 * whatever the account holds), in the order of the `account-entries` read model (time, then entry),
 * with each item's current state and the balance now, signed by the service wallet.
 */
export function createStatementQuery({
  readStore,
  jwk,
  now,
}: {
  readStore: Pick<ReadStore, 'scan' | 'getMany' | 'get'>;
  jwk: RsaPrivateJwk;
  now: () => number;
}) {
  const signer = createStatementSigner(jwk);
  return async function statement(address: string, page: { limit: number; cursor?: string }): Promise<AccountStatement> {
    const afterId = afterIdOf(address, page.cursor);
    // one more than asked: whether a next page exists
    const docs = await readStore.scan<AccountEntry>(collectionOf(accountEntriesProjection), { afterId, limit: page.limit + 1 });
    const mine = docs.filter((d) => d.id.startsWith(accountEntriesStart(address)));
    const shown = mine.slice(0, page.limit);
    const itemIds = [...new Set(shown.filter((d) => d.doc.kind !== 'credit').map((d) => d.doc.id))];
    const [statuses, account] = await Promise.all([
      readStore.getMany<TxStatusDocument>(collectionOf(txStatusProjection), itemIds),
      readStore.get<SerializedAccount>(collectionOf(accountBalanceProjection), address),
    ]);
    const state = account ? deserializeAccount(account.doc) : initialAccountState;
    const entries = shown.map(({ doc }): StatementEntry => {
      const base = { kind: doc.kind, id: doc.id, winc: doc.winc, timestamp: doc.timestamp };
      if (doc.kind === 'credit') return base;
      const status = statuses.get(doc.id)?.doc;
      return { ...base, item: status ? { status: status.status, info: status.info } : null };
    });
    const last = shown[shown.length - 1];
    return signer.sign({
      address,
      generatedAt: now(),
      balance: {
        winc: availableOf(state).toString(),
        creditedWinc: state.credited.toString(),
        spentWinc: state.spent.toString(),
        reservedWinc: reservedOf(state).toString(),
      },
      entries,
      ...(page.cursor !== undefined ? { after: page.cursor } : {}),
      nextCursor: mine.length > page.limit && last ? cursorOf(last.id) : null,
      public: signer.publicModulus,
    });
  };
}
