import type { AuditSummary } from './audit.js';
import type { Finding } from './types.js';

/** One line per finding: kind, id, what differs. */
export const findingLine = (f: Finding): string => `${f.kind.padEnd(20)} ${f.id}  ${f.detail}`;

const minutes = (ms: number) => `${ms / 60_000} min`;

export function summaryText(s: AuditSummary): string {
  const c = s.checked;
  const lines = [
    `audited ${c.events} events (up to position ${s.head}):`,
    `  item blobs ${c.itemBlobs} (size, sha256, signature, id)${c.retiredItemBlobs > 0 ? `, of which ${c.retiredItemBlobs} retired after permanence (on Arweave)` : ''}`,
    `  receipts ${c.receipts}${s.receiptKeyChecked ? '' : ' (signer not compared: no service wallet found)'}`,
    `  accounts ${c.accounts}${c.accountsNotProjectedYet > 0 ? ` (${c.accountsNotProjectedYet} not projected yet)` : ''}`,
    `  bundle plans ${c.bundlePlans} (${c.plannedItems} planned items)`,
    `  paid items ${c.paidItems}${c.awaitingSettlement > 0 ? ` (${c.awaitingSettlement} awaiting settlement)` : ''}`,
    `  refunds ${c.refunds} of FAILED items' charges`,
    `  top-up credits ${c.topUps} against their chain${c.topUpsNotChecked > 0 ? ` (${c.topUpsNotChecked} not checked: chain not configured or not reachable)` : ''}`,
    `  x402 payments ${c.x402Payments} against their chain${c.x402NotChecked > 0 ? ` (${c.x402NotChecked} not checked: chain not configured or not reachable)` : ''}${c.x402InFlight > 0 ? ` (${c.x402InFlight} in flight)` : ''}`,
    `  blobs ${c.blobsListed} against their events${c.blobsNotJudged > 0 ? ` (${c.blobsNotJudged} changed within ${minutes(s.blobGraceMs)}, not judged)` : ''}`,
    s.findings === 0 ? 'no findings' : `${s.findings} finding${s.findings === 1 ? '' : 's'}`,
  ];
  return lines.join('\n');
}

/**
 * The JSON report, written in three parts so findings go out as they are found:
 * `{"findings":[` + findings joined by commas + `],"head":...,"checked":{...},...}`.
 */
export const jsonOpening = '{"findings":[';
export const jsonFinding = (f: Finding, first: boolean): string => `${first ? '' : ','}\n${JSON.stringify(f)}`;
export const jsonClosing = (s: AuditSummary): string =>
  `\n],"head":${JSON.stringify(s.head.toString())},"checked":${JSON.stringify(s.checked)},"findingCount":${s.findings},"receiptKeyChecked":${s.receiptKeyChecked},"blobGraceMs":${s.blobGraceMs}}`;
