import type { Hex } from 'viem';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from 'x402/types';
import { x402Packages } from '../../x402Packages.js';
import { DataItemTooLarge, InvalidDataItem, ServiceUnavailable } from '../../domain/errors.js';
import type { DataItemId } from '../../domain/ids.js';
import type { Receipt } from '../../domain/receipt.js';
import type { X402Settlement } from '../../adapters/x402/settlement.js';
import type { BlobHasher } from '../../crypto/blobHasher.js';
import { acceptDataItem, freshBlockHeight, type AcceptDeps } from '../acceptance/acceptDataItem.js';
import { receiveDataItem, type ReceivedDataItem } from '../acceptance/receiveDataItem.js';
import { ensureNotBlocked } from '../blocklist.js';
import { metadataOf, type RequestContext } from '../context.js';
import { authorizationOf, decodePaymentHeader, type Authorization } from './paymentHeader.js';
import { maxTimeoutSecondsFor, usdcForWinc, wincForUsdc } from './pricing.js';
import type { X402PaymentRepository } from './payments.js';
import { x402PaymentId } from '../../domain/x402/decider.js';
import type { X402SettlementStarted } from '../../domain/x402/events.js';
import { bestEffort } from '../../bestEffort.js';

/** One configured network: what its requirements name, and x402's verify and settle for it. */
export interface X402Network {
  network: string;
  usdc: Hex;
  payTo: Hex;
  /** the USDC contract's EIP-712 domain name and version (USDC on Base: "USD Coin", "2") */
  eip712: { name: string; version: string };
  settlement: X402Settlement;
}

export interface X402Deps extends AcceptDeps {
  networks: readonly X402Network[];
  /** the settlements started, by payment id: written before each is submitted */
  payments: Pick<X402PaymentRepository, 'execute'>;
  wincPerUsdc: bigint;
  maxDataItemSize: number;
  strictTags?: boolean;
  hasher?: BlobHasher;
}

export interface X402Request {
  body: AsyncIterable<Uint8Array>;
  /** `:network` of the route, when given: only that network is offered */
  network?: string;
  contentLength?: number;
  contentType?: string;
  paymentHeader?: string;
  /** the URL the client called, as the requirements' `resource` */
  resourceUrl: string;
  ctx: RequestContext;
}

/** What the route answers: 411, 402 with the requirements, 402 `Payment failed`, or the receipt. */
export type X402Outcome =
  | { kind: 'lengthRequired' }
  | { kind: 'paymentRequired'; accepts: PaymentRequirements[]; error: string; payer?: string }
  | { kind: 'paymentFailed'; reason: string }
  | {
      kind: 'accepted' | 'exists';
      receipt: Receipt;
      /** the settlement, for `X-PAYMENT-RESPONSE`, the transaction and the USDC paid (absent: free, or already stored) */
      payment?: { header: string; transaction: string; usdc: string; payer: string };
    };

/** the reference's answer to a request without a usable `X-PAYMENT` (turbo-upload-service src/routes/x402DataItemPost.ts) */
export const PAYMENT_HEADER_REQUIRED = 'X-Payment header is required for x402 uploads.';

function requirementsOf(n: X402Network, usdc: bigint, bytes: number, request: X402Request): PaymentRequirements {
  return {
    scheme: 'exact',
    network: n.network as PaymentRequirements['network'],
    maxAmountRequired: usdc.toString(),
    resource: request.resourceUrl,
    description: `Cost to upload ${bytes} bytes`,
    mimeType: request.contentType ?? 'application/octet-stream',
    payTo: n.payTo,
    maxTimeoutSeconds: maxTimeoutSecondsFor(bytes),
    asset: n.usdc,
    extra: { name: n.eip712.name, version: n.eip712.version },
  };
}

/** The item an x402 upload pays for: the size it is priced at, and how its bytes are received once paid for. */
export interface PaidItemSource {
  bytes: number;
  /** the verified item in a provisional blob; `payer`: the verified payment's payer (none for a free item) */
  receive(payer: string | undefined): Promise<ReceivedDataItem>;
}

/**
 * `POST /x402/data-item/signed`: a signed item paid with one x402 `exact` USDC authorization for its
 * exact price. The payment is verified (x402's `verify`) before a byte of the body is read, the item is
 * received and verified, then the settlement is recorded as started (so a crash at any later moment
 * leaves it on record for the recovery pass, src/app/x402/recovery.ts), settled on chain (x402's `settle`)
 * and recorded as a credit of what it is worth to the payer's account, keyed by the authorization
 * (network, payer and nonce), before the item is accepted charging that account. A payment that does not
 * settle stores and charges nothing (recorded failed); a crash after the settlement leaves the payment to
 * be credited; an authorization credited, or being settled, is refused before it is settled again.
 */
export async function uploadWithX402(deps: X402Deps, request: X402Request): Promise<X402Outcome> {
  const length = request.contentLength;
  if (length === undefined) return { kind: 'lengthRequired' };
  if (length > deps.maxDataItemSize) throw new DataItemTooLarge(`content-length ${length}`);
  return payForItem(deps, request, { bytes: length, receive: () => receiveExactly(deps, request, length) });
}

/** prices `source`, takes its payment, receives it, settles, credits the payer and accepts the item charging it */
export async function payForItem(deps: X402Deps, request: X402Request, source: PaidItemSource): Promise<X402Outcome> {
  // no receipt could be signed (503): refused before a payment is verified, let alone settled
  freshBlockHeight(deps);
  const offered = request.network === undefined ? deps.networks : deps.networks.filter((n) => n.network === request.network);
  const winc = await deps.pricing.priceOf(source.bytes);
  const usdc = usdcForWinc(winc, deps.wincPerUsdc);
  const accepts = (offered.length > 0 ? offered : deps.networks).map((n) => requirementsOf(n, usdc, source.bytes, request));
  if (offered.length === 0) return { kind: 'paymentRequired', accepts, error: 'invalid_network' };
  if (winc === 0n) return acceptFree(deps, request, source);

  const payload = decodePaymentHeader(request.paymentHeader);
  if (!payload) return { kind: 'paymentRequired', accepts, error: PAYMENT_HEADER_REQUIRED };
  const index = accepts.findIndex((r) => r.network === payload.network && r.scheme === payload.scheme);
  const authorization = authorizationOf(payload);
  if (index < 0 || !authorization) return { kind: 'paymentRequired', accepts, error: 'Payment network mismatch' };
  const network = offered[index]!;
  const requirements = accepts[index]!;
  const verified = await verifyOrUnavailable(network, payload, requirements);
  if (!verified.isValid) return { kind: 'paymentRequired', accepts, error: verified.invalidReason ?? 'Payment verification failed', payer: authorization.from };
  const payer = x402Packages().viem.getAddress(authorization.from);
  const paymentId = x402PaymentId(network.network, payer, authorization.nonce);
  const refused: X402Outcome = { kind: 'paymentRequired', accepts, error: AUTHORIZATION_USED, payer };
  // before a byte is read: an authorization credited already pays nothing more
  if ((await deps.accounts.read(payer)).creditIds.has(paymentId)) return refused;

  // all the USDC paid is credited (at least the price: verify saw value >= maxAmountRequired), then the price charged
  const credit = wincForUsdc(BigInt(authorization.value), deps.wincPerUsdc);
  const received = await source.receive(payer);
  try {
    const existing = await deps.items.read(received.verified.id as DataItemId);
    // a re-sent item is answered with its receipt, and its payment is not taken
    if (existing.status === 'accepted') {
      const outcome = await acceptDataItem(received, { token: TOKEN, ctx: request.ctx }, deps);
      return { kind: outcome.kind, receipt: outcome.receipt };
    }
    const started = await deps.payments.execute(
      {
        type: 'StartSettlement',
        data: settlementOf(paymentId, network, authorization, { payer, winc: credit, dataItemId: received.verified.id, now: deps.now() }),
      },
      metadataOf(request.ctx),
    );
    // another upload is settling (or settled) this authorization
    if (started.events.length === 0) {
      await received.discard();
      return refused;
    }
  } catch (error) {
    await received.discard();
    throw error;
  }
  const settled = await settleOrRefuse(network, payload, requirements, authorization, received);
  if (settled.kind === 'failed') {
    if (settled.final) await failSettlement(deps, paymentId, settled.reason, request.ctx);
    return { kind: 'paymentFailed', reason: settled.reason };
  }
  await creditPayer(
    deps,
    { payer, winc: credit, creditId: paymentId, network: network.network, transaction: settled.response.transaction },
    request.ctx,
    received,
  );
  const outcome = await acceptDataItem(received, { token: TOKEN, payer, ctx: request.ctx }, deps);
  return {
    kind: outcome.kind,
    receipt: outcome.receipt,
    payment: {
      header: x402Packages().types.settleResponseHeader(settled.response),
      transaction: settled.response.transaction,
      usdc: authorization.value,
      payer,
    },
  };
}

/** the settlement of `authorization` as it is recorded before it is submitted */
function settlementOf(
  paymentId: string,
  network: X402Network,
  authorization: Authorization,
  p: { payer: string; winc: bigint; dataItemId: string; now: number },
): X402SettlementStarted['data'] {
  return {
    paymentId,
    network: network.network,
    payer: p.payer,
    nonce: authorization.nonce.toLowerCase(),
    asset: network.usdc,
    payTo: network.payTo,
    usdc: BigInt(authorization.value).toString(),
    winc: p.winc.toString(),
    validBefore: Number(authorization.validBefore),
    dataItemId: p.dataItemId,
    timestamp: p.now,
  };
}

/** what a payment with an authorization already settled, or being settled, is answered */
export const AUTHORIZATION_USED = 'authorization already used';

/** a settlement that did not take the USDC is ended; if this append fails, the recovery pass ends it once the authorization expires */
async function failSettlement(deps: X402Deps, paymentId: string, reason: string, ctx: RequestContext): Promise<void> {
  await bestEffort(
    // a chain client's error can run to kilobytes: the event keeps its start
    deps.payments.execute({ type: 'FailSettlement', data: { paymentId, reason: reason.slice(0, 500), now: deps.now() } }, metadataOf(ctx)),
    'the x402 recovery pass ends the settlement once its authorization expires',
  );
}

/** items paid in USDC are recorded with this token name (turbo-sdk's name for USDC on Base is `base-usdc`) */
const TOKEN = 'usdc';

async function acceptFree(deps: X402Deps, request: X402Request, source: PaidItemSource): Promise<X402Outcome> {
  const received = await source.receive(undefined);
  const outcome = await acceptDataItem(received, { token: TOKEN, ctx: request.ctx }, deps);
  return { kind: outcome.kind, receipt: outcome.receipt };
}

/** the body as a verified item of exactly the declared (and priced) length; the block list checked on its header */
export async function receiveExactly(deps: X402Deps, request: X402Request, length: number): Promise<ReceivedDataItem> {
  const received = await receiveDataItem(request.body, {
    blobStore: deps.blobStore,
    // no byte past what was priced and paid for is taken
    maxSize: length,
    ...(deps.strictTags ? { strictTags: deps.strictTags } : {}),
    onHeader: async (header) => ensureNotBlocked(deps.blocklist, { owner: header }),
    ...(deps.hasher ? { hasher: deps.hasher } : {}),
  });
  if (received.verified.rawContentLength !== length) {
    await received.discard();
    throw new InvalidDataItem(`x402 uploads need an exact content-length: ${length} declared, ${received.verified.rawContentLength} received`);
  }
  return received;
}

async function verifyOrUnavailable(network: X402Network, payload: PaymentPayload, requirements: PaymentRequirements) {
  try {
    return await network.settlement.verify(payload, requirements);
  } catch (error) {
    throw new ServiceUnavailable(`x402 verification on ${network.network} failed: ${String(error)}`);
  }
}

/** `final`: the USDC was not taken and cannot be by this attempt; otherwise the chain may still take it (the recovery pass decides) */
type Settled = { kind: 'settled'; response: SettleResponse } | { kind: 'failed'; reason: string; final: boolean };

/**
 * Settles the payment; when it does not, the received bytes are given up. A settlement that ended without
 * an answer (the RPC went down) is decided by the chain: the authorization used means the payment went
 * through; unused, it failed; unreadable, 503 (nothing stored; the chain keeps the authorization single-use).
 */
async function settleOrRefuse(
  network: X402Network,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  authorization: Authorization,
  received: ReceivedDataItem,
): Promise<Settled> {
  let response: SettleResponse;
  try {
    response = await network.settlement.settle(payload, requirements);
  } catch (error) {
    let used: boolean;
    try {
      used = await network.settlement.authorizationUsed(authorization.from as Hex, authorization.nonce as Hex);
    } catch {
      await received.discard();
      throw new ServiceUnavailable(`x402 settlement on ${network.network} ended unknown: ${String(error)}`);
    }
    if (!used) {
      // unused now, but a transaction sent and not yet mined may still use it: left started
      await received.discard();
      return { kind: 'failed', reason: String(error), final: false };
    }
    response = { success: true, transaction: '', network: requirements.network, payer: authorization.from };
  }
  if (!response.success) {
    await received.discard();
    return { kind: 'failed', reason: response.errorReason ?? 'settlement failed', final: true };
  }
  return { kind: 'settled', response };
}

/** the settled payment as a credit of the item's price to the payer, keyed by the authorization */
async function creditPayer(
  deps: X402Deps,
  p: { payer: string; winc: bigint; creditId: string; network: string; transaction: string },
  ctx: RequestContext,
  received: ReceivedDataItem,
): Promise<void> {
  try {
    await deps.accounts.execute(
      {
        type: 'Credit',
        data: { address: p.payer, winc: p.winc, creditId: p.creditId, reason: `x402 payment on ${p.network} ${p.transaction}`.trim(), now: deps.now() },
      },
      metadataOf(ctx),
    );
  } catch (error) {
    deps.log?.('an x402 payment settled on chain but its credit was not recorded', { creditId: p.creditId, transaction: p.transaction, error: String(error) });
    await received.discard();
    throw error;
  }
}
