import type { Router } from 'express';
import { InvalidRequest } from '../domain/errors.js';
import { STATEMENT_DEFAULT_LIMIT, STATEMENT_MAX_LIMIT, type QueryHandlers } from '../queries/index.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import { accountStatementRoute } from './openapi/routes/statement.js';

/** `limit`: absent is the default; else a whole number of 1 to STATEMENT_MAX_LIMIT in plain digits */
function limitOf(raw: unknown): number {
  if (raw === undefined) return STATEMENT_DEFAULT_LIMIT;
  const limit = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= STATEMENT_MAX_LIMIT)) throw new InvalidRequest(`limit must be 1 to ${STATEMENT_MAX_LIMIT}`);
  return limit;
}

/** `GET /account/statement/:address`: a page of the account's signed statement */
export function serveStatement(router: Router, statement: QueryHandlers['accountStatement']): void {
  serve(router, accountStatementRoute, async (req, res) => {
    const { address } = parseParams(accountStatementRoute, req);
    const limit = limitOf(req.query.limit);
    const cursor = req.query.cursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidRequest('one cursor');
    res.set('Cache-Control', 'no-store');
    res.json(await statement(address, { limit, ...(cursor !== undefined ? { cursor } : {}) }));
  });
}
