import { z } from 'zod';
import { InvalidRequest } from '../domain/errors.js';

/**
 * What the admin API and the operator CLIs accept, parsed at the edge. Amounts are winc as decimal
 * strings (JSON numbers lose precision past 2^53): a positive integer, no sign, no leading zero, any size.
 */
export const PositiveWinc = z
  .string()
  .regex(/^[1-9][0-9]*$/, 'a positive integer as a decimal string')
  .transform((s) => BigInt(s));

/** A credit id names a credit for good: the same id credits once (invoice or payment ids fit). */
export const CreditId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'letters, digits and . _ : - (at most 128)');

export const Reason = z.string().min(1).max(500);

/** With an offset or Z, so an operator's local time zone never shifts an expiry. */
export const ExpiresAt = z.iso.datetime({ offset: true }).transform((s) => Date.parse(s));

// Strict: a misspelt field (`expires` for `expiresAt`) must fail, not be dropped silently.
export const CreditBody = z
  .strictObject({ winc: PositiveWinc, creditId: CreditId.optional(), reason: Reason.optional() })
  .meta({ id: 'CreditRequest', description: 'a credit: `winc` > 0; the same `creditId` credits once' });

export const ApprovalBody = z
  .strictObject({ approvedAddress: z.string(), winc: PositiveWinc, expiresAt: ExpiresAt.optional() })
  .meta({ id: 'ApprovalRequest', description: 'the payer pays up to `winc` for `approvedAddress`, until `expiresAt` (ISO 8601 with offset) if given' });

/** who asked, as the operator names themselves (kept in the event, shown by the history) */
export const Operator = z.string().regex(/^\S(?:.{0,98}\S)?$/, '1 to 100 characters, not starting or ending with a space');

export const RequeueBody = z
  .strictObject({ by: Operator, reason: Reason })
  .meta({ id: 'RequeueRequest', description: 'who puts the FAILED item back in the bundle queue (`by`), and why (`reason`)' });

export const QuarantineBody = z
  .strictObject({ by: Operator, reason: Reason })
  .meta({ id: 'QuarantineRequest', description: 'who holds or releases the item (`by`), and why (`reason`): kept with the event on its stream' });

export const BlockBody = z
  .strictObject({ by: Operator, reason: Reason })
  .meta({ id: 'BlockRequest', description: 'who blocks or unblocks the address, and why (kept in the block-list stream)' });

/** The parsed value, or InvalidRequest (400 `Invalid request`) naming the first problem for the log. */
export function parseOrInvalid<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InvalidRequest(issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body');
}
