import { z } from 'zod';
import { defineRoute } from '../route.js';
import { addressParam } from '../params.js';

/** `GET /account/statement/:address`: its own file, beside the balance query of public.ts. */

const Winc = z.string().regex(/^\d+$/);

export const AccountStatementBody = z
  .object({
    address: z.string(),
    generatedAt: z.int().meta({ description: 'ms since the epoch when the statement was made' }),
    balance: z
      .object({ winc: Winc, creditedWinc: Winc, spentWinc: Winc, reservedWinc: Winc })
      .meta({ description: 'the balance now, as `GET /account/balance/:address`' }),
    entries: z
      .array(
        z.object({
          kind: z.enum(['credit', 'charge', 'refund', 'recharge']).meta({
            description:
              '`credit` adds winc (a credit or top-up), `charge` spends them on an item, `refund` gives a FAILED item its charge back, `recharge` charges a refunded item again when it is requeued',
          }),
          id: z.string().meta({ description: 'the credit id of a credit (`<token>:<txId>` for a top-up); the data item id of the others' }),
          winc: Winc,
          timestamp: z.int(),
          item: z
            .object({ status: z.enum(['CONFIRMED', 'FINALIZED', 'FAILED']), info: z.enum(['new', 'pending', 'permanent', 'failed', 'damaged']) })
            .nullable()
            .optional()
            .meta({ description: "the item's status now (`GET /tx/:id/status`); absent for a credit" }),
        }),
      )
      .meta({ description: 'in time order (then by entry), at most `limit`' }),
    after: z.string().optional().meta({ description: 'the cursor this page follows, when one was given' }),
    nextCursor: z.string().nullable().meta({ description: 'the `cursor` of the next page; null on the last' }),
    public: z.string().meta({ description: "the service wallet's RSA modulus `n`, base64url (its sha256 is `/info`'s `addresses.arweave`)" }),
    signature: z.string().meta({
      description:
        'base64url RSA-PSS (SHA-256, salt length 0) by the service wallet over the UTF-8 bytes of the canonical JSON of the statement without `signature` (keys sorted, no whitespace); `npm run verify-statement` checks it',
    }),
  })
  .meta({ id: 'AccountStatement' });

export const accountStatementRoute = defineRoute({
  operationId: 'getAccountStatement',
  method: 'get',
  path: '/account/statement/:address',
  tag: 'accounts',
  summary: 'Signed statement of an account',
  description:
    "Each credit, charge, refund and recharge of the account with its id, winc and time, each item's status now, and the balance, signed by the service wallet so it can be verified offline. " +
    'Paginated: at most `limit` entries (default 100, at most 1000), then `nextCursor`. The address is brought to the account key as in the balance query.',
  params: { address: addressParam("the account's native address") },
  query: {
    limit: { schema: z.int().min(1).max(1000), description: 'entries per page, 1 to 1000 (default 100); another value is `Invalid request`' },
    cursor: { schema: z.string(), description: "a previous page's `nextCursor`; one not of this account is `Invalid request`" },
  },
  responses: {
    200: {
      description: 'the statement',
      content: { contentType: 'application/json', schema: AccountStatementBody },
      headers: { 'cache-control': { schema: z.literal('no-store'), description: 'never cached' } },
    },
  },
  errors: ['INVALID_ADDRESS', 'INVALID_REQUEST'],
});
