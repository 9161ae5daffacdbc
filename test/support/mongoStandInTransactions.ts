import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandRouter, Document, ICommandHandler, IHandlerContext } from '@push.rocks/smartmongo/dist_ts/congodb/index.js';
import { WriteConflict, type TransactionalStorage, type Work } from './mongoStandInStorage.js';

/**
 * The stand-in's commands, run as MongoDB runs them in and out of transactions (the units of work and
 * their isolation are in mongoStandInStorage.ts). Each rule comes from the server:
 * - a command carrying `lsid`, `txnNumber` and `autocommit: false` is a statement of the session's
 *   transaction `txnNumber`; `startTransaction: true` begins it, and a higher `txnNumber` on the session
 *   aborts the one still open; a statement of a transaction that is not open answers NoSuchTransaction
 *   (`src/mongo/db/transaction/transaction_participant.cpp`, `TransactionParticipant::Participant::beginOrContinue`).
 * - a statement that fails aborts its transaction, and a WriteConflict in one is answered as the
 *   command's error (not in `writeErrors`), labelled TransientTransactionError, so that the driver's
 *   `withTransaction` runs the transaction again (jstests/core/txns/transactions_write_errors.js;
 *   the label: `src/mongo/db/error_labels.cpp`, `isTransientTransactionError`, which labels
 *   NoSuchTransaction too).
 * - a write outside a transaction that conflicts is run again until it succeeds (`writeConflictRetry`,
 *   `src/mongo/db/concurrency/exception_util.h`): meeting a document an open transaction wrote, it
 *   waits until that transaction ends (jstests/core/txns/write_conflicts_with_non_txns.js), or until
 *   its `maxTimeMS` (then MaxTimeMSExpired).
 * - `commitTransaction` applies the writes; `abortTransaction`, `endSessions` and the transaction's
 *   lifetime limit (the server parameter `transactionLifetimeLimitSeconds`, 60 by default) drop them.
 */
export function withTransactions(router: CommandRouter, storage: TransactionalStorage): void {
  const handlers = (router as unknown as { handlers: Map<string, ICommandHandler> }).handlers;
  const sessions = new Map<string, { txnNumber: bigint; work: Work }>();

  const abortSession = (session: string): void => {
    const open = sessions.get(session);
    if (open) storage.abort(open.work);
  };

  const statement = async (context: IHandlerContext, handler: ICommandHandler): Promise<Document> => {
    const { lsid, txnNumber, startTransaction } = context.command;
    const session = sessionKey(lsid);
    const number = BigInt(String(txnNumber));
    if (startTransaction === true) {
      abortSession(session);
      const work = storage.begin();
      sessions.set(session, { txnNumber: number, work });
      const reaper = setTimeout(() => storage.abort(work), TRANSACTION_LIFETIME_MS);
      reaper.unref();
      void work.ended.then(() => clearTimeout(reaper));
    }
    const open = sessions.get(session);
    if (open?.txnNumber !== number || open.work.state !== 'open') return noSuchTransaction(number);
    const work = open.work;
    let answer: Document;
    try {
      answer = await storage.within(work, () => handler.handle(context));
    } catch (error) {
      storage.abort(work);
      if (error instanceof WriteConflict) return writeConflict(error);
      throw error;
    }
    if (work.conflict) {
      storage.abort(work);
      return writeConflict(work.conflict);
    }
    if (answer.ok !== 1 || answer.writeErrors !== undefined) storage.abort(work);
    return answer;
  };

  const singleWrite = async (context: IHandlerContext, handler: ICommandHandler): Promise<Document> => {
    const maxTimeMS = Number(context.command.maxTimeMS) || 0;
    const deadline = maxTimeMS > 0 ? Date.now() + maxTimeMS : Infinity;
    for (;;) {
      const work = storage.begin();
      let answer: Document;
      try {
        answer = await storage.within(work, () => handler.handle(context));
      } catch (error) {
        storage.abort(work);
        if (!(error instanceof WriteConflict)) throw error;
      }
      const conflict = work.conflict;
      if (!conflict) {
        storage.commit(work);
        return answer!;
      }
      storage.abort(work);
      const holder = conflict.holder;
      // committed by another since this write began: at once; held by an open transaction: once it ends
      if (!holder) await sleep(0);
      else if (!(await endsBefore(holder, deadline))) {
        return { ok: 0, errmsg: 'operation exceeded time limit', code: 50, codeName: 'MaxTimeMSExpired' };
      }
    }
  };

  const ending = (context: IHandlerContext): Document => {
    const { command } = context;
    const open = sessions.get(sessionKey(command.lsid));
    const number = BigInt(String(command.txnNumber));
    if (open?.txnNumber !== number || open.work.state === 'aborted') return noSuchTransaction(number);
    if (command.commitTransaction !== undefined) {
      // a commit sent again answers as the first did
      storage.commit(open.work);
      return { ok: 1 };
    }
    if (open.work.state === 'committed') {
      return { ok: 0, errmsg: 'Transaction has been committed', code: 256, codeName: 'TransactionCommitted' };
    }
    storage.abort(open.work);
    return { ok: 1 };
  };

  for (const [name, handler] of handlers) {
    handlers.set(name, {
      handle: async (context: IHandlerContext): Promise<Document> => {
        const { command } = context;
        if (name === 'commitTransaction' || name === 'abortTransaction') return ending(context);
        if (name === 'endSessions') {
          for (const lsid of (command.endSessions as Document[] | undefined) ?? []) {
            const session = sessionKey(lsid);
            abortSession(session);
            sessions.delete(session);
          }
        }
        if (command.autocommit === false && command.lsid !== undefined) return statement(context, handler);
        if (WRITES.has(name)) return singleWrite(context, handler);
        return handler.handle(context);
      },
    });
  }
}

/** the server's default transactionLifetimeLimitSeconds */
const TRANSACTION_LIFETIME_MS = 60_000;

const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify']);

const sessionKey = (lsid: Document): string => Buffer.from((lsid.id as { buffer: Uint8Array }).buffer).toString('hex');

async function endsBefore(work: Work, deadline: number): Promise<boolean> {
  if (deadline === Infinity) {
    await work.ended;
    return true;
  }
  const timer = new AbortController();
  const ended = await Promise.race([
    work.ended.then(() => true),
    sleep(Math.max(0, deadline - Date.now()), false, { signal: timer.signal }).catch(() => false),
  ]);
  timer.abort();
  return ended;
}

const writeConflict = (conflict: WriteConflict): Document => ({
  ok: 0,
  errmsg: conflict.message,
  code: conflict.code,
  codeName: conflict.codeName,
  errorLabels: ['TransientTransactionError'],
});

const noSuchTransaction = (txnNumber: bigint): Document => ({
  ok: 0,
  errmsg: `Transaction with { txnNumber: ${txnNumber} } has been aborted.`,
  code: 251,
  codeName: 'NoSuchTransaction',
  errorLabels: ['TransientTransactionError'],
});
