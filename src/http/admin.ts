import { randomUUID } from 'node:crypto';
import express, { Router, type ErrorRequestHandler, type Request } from 'express';
import { metadataOf } from '../app/context.js';
import { parseAccountAddress } from '../domain/account/ids.js';
import { InvalidAddress, InvalidRequest } from '../domain/errors.js';
import { accountHistoryBody } from './adminHistory.js';
import { bearerGuard } from './adminAuth.js';
import { createAccountOperations, type OperatorDeps, type OperatorMetadata, type OperatorOutcome } from '../app/accounts/accountOperations.js';
import { ApprovalBody, BlockBody, CreditBody, parseOrInvalid, QuarantineBody, RequeueBody } from '../contract/adminSchemas.js';
import { holdAnswerBody, releaseAnswerBody } from '../contract/quarantineBody.js';
import { createQuarantine } from '../app/quarantine.js';
import { BundleRepository } from '../app/bundles.js';
import type { ReadStore } from '../ports/readStore.js';
import { blockAnswerBody, blocklistBody } from '../contract/blocklistBody.js';
import type { Blocklist } from '../app/blocklist.js';
import type { DataItemRepository } from '../app/acceptance/dataItems.js';
import { createRequeue } from '../app/requeueItems.js';
import { requeueBody } from './requeueBody.js';
import { balanceBody, creditBody } from '../contract/balanceBody.js';
import { requestContextOf } from './requestContext.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import {
  accountHistoryRoute,
  accountRoute,
  approveRoute,
  blocklistRoute,
  blockRoute,
  creditRoute,
  quarantineRoute,
  releaseRoute,
  requeueRoute,
  revokeRoute,
  unblockRoute,
} from './openapi/routes/admin.js';
import type { EventStore } from '../ports/eventStore.js';

export interface AdminDeps extends Omit<OperatorDeps, 'now'> {
  /** the bearer token; the router is mounted only when one is configured */
  token: string;
  /** account histories are read from the streams themselves */
  eventStore: EventStore;
  /** the process's one data-item repository: requeues are appended to the items' streams through it */
  items: DataItemRepository;
  /** the block list this process checks uploads against: a change made here applies at once */
  blocklist: Pick<Blocklist, 'execute' | 'list' | 'refresh'>;
  /** where a hold finds the item's bundle plan and its root, when nested (src/app/quarantine.ts) */
  readStore: Pick<ReadStore, 'get'>;
  now: () => number;
  /**
   * Single-process mode: answer after the in-process projector has passed the command's events (a
   * bounded wait), so the public balance query right after an admin command sees it.
   */
  awaitProjection?: (position: bigint) => Promise<unknown>;
}

const addressOf = (value: string): string => {
  const address = parseAccountAddress(value);
  if (address === undefined) throw new InvalidAddress(value);
  return address;
};

/** The request id is the correlation id; `admin` says who caused it (the CLIs say `cli`). */
const adminMetadata = (req: Request): OperatorMetadata => ({ ...metadataOf(requestContextOf(req)), causationId: 'admin' });

/** body-parser's errors (malformed JSON, too large, bad charset) carry a `type` such as `entity.parse.failed` */
const isBodyParserError = (error: unknown): error is Error & { type: string } =>
  error instanceof Error && typeof (error as { type?: unknown }).type === 'string' && 'status' in error;

const bodyErrorsAreInvalidRequests: ErrorRequestHandler = (error, _req, _res, next) => {
  next(isBodyParserError(error) ? new InvalidRequest(`${error.type}: ${error.message}`) : error);
};

/**
 * The operator's API (CONTRACT.md section 5), mounted at `/admin` and `/v1/admin` when ADMIN_TOKEN is
 * set. Every route needs the bearer token; JSON bodies are parsed here only, after the guard.
 */
export function adminRouter(deps: AdminDeps): Router {
  const router = Router();
  const operations = createAccountOperations(deps);
  const requeue = createRequeue({
    items: deps.items,
    accounts: deps.accounts,
    now: deps.now,
    ...(deps.awaitProjection ? { awaitProjection: deps.awaitProjection } : {}),
  });
  const quarantine = createQuarantine({
    items: deps.items,
    bundles: new BundleRepository(deps.eventStore),
    readStore: deps.readStore,
    now: deps.now,
    ...(deps.awaitProjection ? { awaitProjection: deps.awaitProjection } : {}),
  });
  const settled = async (outcome: OperatorOutcome) => {
    if (outcome.position !== undefined && deps.awaitProjection) await deps.awaitProjection(outcome.position);
    return outcome.state;
  };

  router.use(bearerGuard(deps.token));
  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  router.use(express.json({ limit: '16kb' }));

  serve(router, creditRoute, async (req, res) => {
    const { address } = parseParams(creditRoute, req);
    const body = parseOrInvalid(CreditBody, req.body);
    const creditId = body.creditId ?? randomUUID();
    const input = { address, winc: body.winc, creditId, ...(body.reason !== undefined ? { reason: body.reason } : {}) };
    const state = await settled(await operations.credit(input, adminMetadata(req)));
    res.json(creditBody(address, state, creditId));
  });

  serve(router, approveRoute, async (req, res) => {
    const { payer } = parseParams(approveRoute, req);
    const body = parseOrInvalid(ApprovalBody, req.body);
    const approvedAddress = addressOf(body.approvedAddress);
    const input = { payer, approvedAddress, winc: body.winc, ...(body.expiresAt !== undefined ? { expiresAt: body.expiresAt } : {}) };
    res.json(balanceBody(payer, await settled(await operations.approve(input, adminMetadata(req)))));
  });

  serve(router, revokeRoute, async (req, res) => {
    const { payer, approvedAddress } = parseParams(revokeRoute, req);
    res.json(balanceBody(payer, await settled(await operations.revoke({ payer, approvedAddress }, adminMetadata(req)))));
  });

  // From the account's own stream, not the read model: the operator sees what is stored right now.
  serve(router, accountRoute, async (req, res) => {
    const { address } = parseParams(accountRoute, req);
    res.json(balanceBody(address, await deps.accounts.read(address)));
  });

  serve(router, accountHistoryRoute, async (req, res) => {
    res.json(await accountHistoryBody(deps.eventStore, parseParams(accountHistoryRoute, req).address));
  });

  serve(router, requeueRoute, async (req, res) => {
    const { id } = parseParams(requeueRoute, req);
    const { by, reason } = parseOrInvalid(RequeueBody, req.body);
    res.json(requeueBody(await requeue({ id, by, reason }, adminMetadata(req))));
  });

  serve(router, quarantineRoute, async (req, res) => {
    const { id } = parseParams(quarantineRoute, req);
    const { by, reason } = parseOrInvalid(QuarantineBody, req.body);
    res.json(holdAnswerBody(await quarantine.hold({ id, by, reason }, adminMetadata(req))));
  });

  serve(router, releaseRoute, async (req, res) => {
    const { id } = parseParams(releaseRoute, req);
    const { by, reason } = parseOrInvalid(QuarantineBody, req.body);
    res.json(releaseAnswerBody(await quarantine.release({ id, by, reason }, adminMetadata(req))));
  });

  for (const [route, type] of [
    [blockRoute, 'Block'],
    [unblockRoute, 'Unblock'],
  ] as const) {
    serve(router, route, async (req, res) => {
      const { address } = parseParams(route, req);
      const { by, reason } = parseOrInvalid(BlockBody, req.body);
      const now = deps.now();
      const result = await deps.blocklist.execute({ type, data: { address, by, reason, now } }, adminMetadata(req));
      res.json(blockAnswerBody(address, result));
    });
  }

  // From the stream itself, not what this process last read: the operator sees what is stored now.
  serve(router, blocklistRoute, async (_req, res) => {
    await deps.blocklist.refresh();
    res.json(blocklistBody(deps.blocklist.list()));
  });

  router.use(bodyErrorsAreInvalidRequests);
  return router;
}
