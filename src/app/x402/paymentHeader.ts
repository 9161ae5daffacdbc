import type { PaymentPayload } from 'x402/types';
import { x402Packages } from '../../x402Packages.js';

/** The `X-PAYMENT` header is at most a few hundred bytes of base64 JSON; more is refused unread. */
const MAX_HEADER_CHARS = 8192;

/**
 * The payment payload of an `X-PAYMENT` header (base64 of x402's JSON payload), checked against x402's own
 * schema; undefined when absent or unreadable, which the routes answer as the reference does: 402 with the
 * requirements.
 */
export function decodePaymentHeader(header: string | undefined): PaymentPayload | undefined {
  if (!header || header.length > MAX_HEADER_CHARS) return undefined;
  try {
    const parsed = x402Packages().types.PaymentPayloadSchema.safeParse(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** an EIP-3009 authorization as x402's schema reads it (amounts and times as decimal strings) */
export interface Authorization {
  from: string;
  to: string;
  value: string;
  validBefore: string;
  nonce: string;
}

/** the EIP-3009 authorization of an `exact` EVM payload, when it is one */
export function authorizationOf(payload: PaymentPayload): Authorization | undefined {
  const inner = payload.payload as { authorization?: Authorization };
  return inner.authorization;
}
