import { accountStream, parseAccountAddress } from '../domain/account/ids.js';
import { bundleStream } from '../domain/bundle/ids.js';
import { bundlerLeaseStream } from '../domain/bundle/lease.js';
import { BLOCKLIST_KEY, blocklistStream } from '../domain/blocklist/decider.js';
import { dataItemStream, DataItemId } from '../domain/ids.js';
import { uploadStream, UploadId } from '../domain/upload/ids.js';
import { creditIdOfTransfer, topUpStream } from '../domain/topUp/ids.js';
import { x402PaymentStream } from '../domain/x402/decider.js';
import type { EventStore, RecordedEvent, StreamName } from '../ports/eventStore.js';

export type HistoryKind = 'dataItem' | 'upload' | 'account' | 'bundle' | 'blocklist' | 'lease' | 'topUp' | 'x402Payment';

export interface HistoryTarget {
  kind: HistoryKind;
  /** the id as its stream is named (an ethereum address in its EIP-55 form) */
  id: string;
  stream: StreamName;
}

/** a top-up's credit id, `<token>:<txId>`, as an account's history shows it: its claim */
const TOP_UP = /^[a-z0-9][a-z0-9-]{0,31}:[A-Za-z0-9_-]{43}$|^[a-z0-9][a-z0-9-]{0,31}:0x[0-9a-fA-F]{64}$/;
/** an x402 payment's id, `x402:<network>:<payer>:<nonce>`, as its credit on the payer's account names it */
const X402_PAYMENT = /^x402:[a-z0-9-]{1,64}:0x[0-9a-fA-F]{40}:0x[0-9a-fA-F]{64}$/;
/** plan ids are base64url (newPlanId); anything else cannot name a bundle stream */
const PLAN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The streams an argument could name, in the order they are tried: a 43-character id is both a
 * possible data item id and a possible arweave address, a 22-character one both an upload id and a
 * plan id; the first stream that exists wins.
 */
export function candidateTargets(argument: string): HistoryTarget[] {
  const input = argument.trim();
  // the operator's block list: one stream, named by its own word
  if (input === BLOCKLIST_KEY) return [{ kind: 'blocklist', id: BLOCKLIST_KEY, stream: blocklistStream() }];
  // which instance was the active bundler when, with its fencing token: one stream, named by itself
  if (input === bundlerLeaseStream) return [{ kind: 'lease', id: input, stream: bundlerLeaseStream }];
  // a top-up's claim, by the credit id its account's history shows, in any spelling; a claim stored
  // before ids were canonical is in the stream of its own spelling, tried second
  if (TOP_UP.test(input)) {
    const colon = input.indexOf(':');
    const key = creditIdOfTransfer(input.slice(0, colon), input.slice(colon + 1));
    const spelled = key === input ? [] : [{ kind: 'topUp' as const, id: input, stream: topUpStream(input) }];
    return [{ kind: 'topUp', id: key, stream: topUpStream(key) }, ...spelled];
  }
  // an x402 settlement, by the credit id its payer's history shows (any case: the id is lower case)
  if (X402_PAYMENT.test(input)) return [{ kind: 'x402Payment', id: input.toLowerCase(), stream: x402PaymentStream(input.toLowerCase()) }];
  const out: HistoryTarget[] = [];
  const dataItemId = DataItemId.safeParse(input);
  if (dataItemId.success) out.push({ kind: 'dataItem', id: dataItemId.data, stream: dataItemStream(dataItemId.data) });
  const uploadId = UploadId.safeParse(input);
  if (uploadId.success) out.push({ kind: 'upload', id: uploadId.data, stream: uploadStream(uploadId.data) });
  const address = parseAccountAddress(input);
  if (address !== undefined) out.push({ kind: 'account', id: address, stream: accountStream(address) });
  if (PLAN_ID.test(input)) out.push({ kind: 'bundle', id: input, stream: bundleStream(input) });
  return out;
}

/**
 * The first candidate stream that has an event; else an address the block list names (blocked while
 * it had no account); undefined when none.
 */
export async function resolveTarget(eventStore: Pick<EventStore, 'readStream'>, argument: string): Promise<HistoryTarget | undefined> {
  const candidates = candidateTargets(argument);
  for (const target of candidates) {
    for await (const _ of eventStore.readStream(target.stream, { maxCount: 1 })) return target;
  }
  const account = candidates.find((c) => c.kind === 'account');
  if (account && (await blockEventsOf(eventStore, account.id)).length > 0) return account;
  return undefined;
}

/** the block list's events about `address` (the list is one small stream), shown in its account's history */
export async function blockEventsOf(eventStore: Pick<EventStore, 'readStream'>, address: string): Promise<RecordedEvent[]> {
  const found: RecordedEvent[] = [];
  for await (const recorded of eventStore.readStream(blocklistStream())) {
    if ((recorded.data as { address?: unknown } | null)?.address === address) found.push(recorded);
  }
  return found;
}
