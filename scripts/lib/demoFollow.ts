import { setTimeout as sleep } from 'node:timers/promises';
import { DataItem } from 'arbundles';
import { transactionStatusIn } from '../../src/adapters/gateway/txStatus.js';
import type { DemoEnvironment } from './demoEnvironment.js';
import type { DemoItem } from './demoUploads.js';
import type { TxOffsets } from '../../src/queries/types.js';

/**
 * Follows the demo's items from acceptance to FINALIZED: polls `GET /tx/:id/status`, prints each
 * change, and mines a block on arlocal whenever a bundle transaction is at the gateway with fewer
 * confirmations than the service waits for (arlocal mines only when asked).
 */
export interface ItemStatus {
  status: string;
  info: string;
  bundleId?: string;
}

const TICK_MS = 1000;

export const describeStatus = (s: ItemStatus) => (s.bundleId === undefined ? `${s.status} (${s.info})` : `${s.status} (${s.info}, bundle ${s.bundleId})`);

/** Where arlocal says a bundle transaction is. */
type GatewayState = { kind: 'unknown' } | { kind: 'pending' } | { kind: 'mined'; confirmations: number };

// arlocal's block_height is the height at which the transaction was posted (and confirmations count
// from there), not the block it went in: only the confirmations are shown
const describeGateway = (g: GatewayState) =>
  g.kind === 'unknown'
    ? 'not at the gateway yet'
    : g.kind === 'pending'
      ? 'at arlocal, not in a block yet'
      : `in a block, ${g.confirmations} confirmation${g.confirmations === 1 ? '' : 's'} as arlocal counts them`;

/** printed once, the first time a mined block leaves a bundle out */
const CHUNKS_NOTE = '  (arlocal leaves a bundle posted in chunks out of its blocks until all its chunks are in: the bundler is still posting them)';

/**
 * Resolves once every item is FINALIZED; throws when one FAILED or `signal` aborts. `seen` holds
 * each item's last status (the caller's, so it can report them after a failure).
 */
export async function followUntilFinalized(
  env: DemoEnvironment,
  items: readonly DemoItem[],
  seen: Map<string, ItemStatus>,
  say: (line: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const shown = new Map<string, string>();
  let noted = false;
  /** arlocal's view of a bundle, printed when it changed */
  const gateway = async (bundleId: string) => {
    const state = await gatewayState(env.arlocal.url, bundleId);
    const text = describeGateway(state);
    if (shown.get(bundleId) !== text) say(`  bundle ${bundleId}: ${text}`);
    shown.set(bundleId, text);
    return state;
  };
  const waitsForBlocks = (state: GatewayState) => state.kind === 'pending' || (state.kind === 'mined' && state.confirmations < env.settings.confirmations);

  for (;;) {
    for (const item of items) {
      const now = await itemStatus(env.service.url, item.id);
      const before = seen.get(item.id);
      if (before === undefined || describeStatus(before) !== describeStatus(now)) {
        say(before === undefined ? `  ${item.id}: ${describeStatus(now)}` : `  ${item.id}: ${describeStatus(before)} -> ${describeStatus(now)}`);
        seen.set(item.id, now);
      }
      if (now.status === 'FAILED') throw new Error(`item ${item.id} (${item.label}) FAILED: its bundles were dropped too often`);
    }
    if ([...seen.values()].every((s) => s.status === 'FINALIZED')) return;

    const open = [...new Set([...seen.values()].flatMap((s) => (s.status !== 'FINALIZED' && s.bundleId ? [s.bundleId] : [])))];
    const states = await Promise.all(open.map(gateway));
    if (states.some(waitsForBlocks)) {
      await env.arlocal.mine(1);
      say(`  mined a block on arlocal: height ${await height(env.arlocal.url)}`);
      const after = await Promise.all(open.map(gateway));
      if (!noted && after.some((state) => state.kind === 'pending')) {
        say(CHUNKS_NOTE);
        noted = true;
      }
    }
    await sleep(TICK_MS, undefined, { signal });
  }
}

/** One line per item: FINALIZED, or the last status seen (the lines the demo's test reads). */
export function printSummary(items: readonly DemoItem[], statuses: ReadonlyMap<string, ItemStatus>, say: (line: string) => void): void {
  say('');
  say('Summary:');
  for (const item of items) {
    const status = statuses.get(item.id);
    say(`  ${status?.status === 'FINALIZED' ? 'FINALIZED' : status ? describeStatus(status) : 'not FINALIZED'}  ${item.id}  ${item.label}`);
  }
}

async function itemStatus(serviceUrl: string, id: string): Promise<ItemStatus> {
  const response = await fetch(`${serviceUrl}/v1/tx/${id}/status`);
  if (response.status !== 200) throw new Error(`GET /v1/tx/${id}/status answered HTTP ${response.status}: ${await response.text()}`);
  const { status, info, bundleId } = (await response.json()) as ItemStatus;
  return bundleId === undefined ? { status, info } : { status, info, bundleId };
}

/** read as the service's bundler reads it (arlocal answers 200 "Pending" where Arweave nodes answer 202) */
async function gatewayState(arlocalUrl: string, txId: string): Promise<GatewayState> {
  const url = `${arlocalUrl}/tx/${txId}/status`;
  const response = await fetch(url);
  const text = await response.text();
  const status = transactionStatusIn({ url, status: response.status, text });
  return status.status === 'confirmed' ? { kind: 'mined', confirmations: status.confirmations } : { kind: status.status === 'pending' ? 'pending' : 'unknown' };
}

async function height(arlocalUrl: string): Promise<number> {
  const info = (await (await fetch(`${arlocalUrl}/info`)).json()) as { height: number };
  return info.height;
}

/** the body of `GET /tx/:id/offsets` (CONTRACT.md section 6) */
export type ItemOffsets = TxOffsets;

/**
 * `GET /tx/:id/offsets` of each item, checked against the bundle as arlocal serves it: the bytes
 * at that offset parse as a data item with the item's id, a valid signature and the uploaded payload.
 * Problems are returned as text (one per item), not thrown, so the demo can report them all.
 */
export async function checkOffsets(
  env: DemoEnvironment,
  items: readonly DemoItem[],
  say: (line: string) => void,
): Promise<{ offsets: Map<string, ItemOffsets>; problems: string[] }> {
  const bundles = new Map<string, Promise<Buffer>>();
  const offsets = new Map<string, ItemOffsets>();
  const problems: string[] = [];
  for (const item of items) {
    const response = await fetch(`${env.service.url}/v1/tx/${item.id}/offsets`);
    if (response.status !== 200) {
      problems.push(`GET /v1/tx/${item.id}/offsets answered HTTP ${response.status}: ${await response.text()}`);
      continue;
    }
    const o = (await response.json()) as ItemOffsets;
    offsets.set(item.id, o);
    const end = o.startOffsetInRootBundle + o.rawContentLength;
    say(`  ${item.id}: bundle ${o.rootBundleId}, bytes ${o.startOffsetInRootBundle} to ${end}`);
    say(`    payload at +${o.payloadDataStart}, ${o.payloadContentLength} bytes of ${o.payloadContentType}`);

    if (!bundles.has(o.rootBundleId)) bundles.set(o.rootBundleId, env.arlocal.data(o.rootBundleId));
    const bundle = await bundles.get(o.rootBundleId)!;
    const raw = bundle.subarray(o.startOffsetInRootBundle, end);
    const problem = await checkRaw(raw, item, o);
    if (problem) problems.push(`${item.id}: ${problem}`);
    else say(`    read back from arlocal at that offset: the same item (id and signature verify, payload identical)`);
  }
  return { offsets, problems };
}

async function checkRaw(raw: Buffer, item: DemoItem, o: ItemOffsets): Promise<string | undefined> {
  if (raw.length !== o.rawContentLength) return `the bundle at arlocal holds only ${raw.length} of its ${o.rawContentLength} bytes`;
  let parsed: DataItem;
  try {
    parsed = new DataItem(raw);
    if (parsed.id !== item.id) return `the bytes at that offset are item ${parsed.id}`;
    if (!(await parsed.isValid())) return 'the bytes at that offset do not verify as a data item';
  } catch (error) {
    return `the bytes at that offset are not a data item (${error instanceof Error ? error.message : String(error)})`;
  }
  if (parsed.getStartOfData() !== o.payloadDataStart) return `payloadDataStart is ${o.payloadDataStart}, the item's data starts at ${parsed.getStartOfData()}`;
  if (Buffer.compare(raw.subarray(o.payloadDataStart), item.payload) !== 0) return 'the payload differs from the bytes uploaded';
  return undefined;
}
