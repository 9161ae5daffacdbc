import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { DEFAULT_BLOB_GRACE_MS, runAudit, type AuditSummary } from '../../src/audit/audit.js';
import { readServicePublicModulus } from '../../src/audit/serviceKey.js';
import type { Finding } from '../../src/audit/types.js';
import { BundleRepository } from '../../src/app/bundles.js';
import { nativeAddress } from '../../src/verify/index.js';
import { SERVICE_WALLET_FILE, startTestService, type TestService } from '../support/testService.js';
import { asBody } from '../support/items.js';
import { collectionOf, liveBundlesProjection } from '../../projections/index.js';

export const FREE = 1500;
export const RATE = 10n;
export const meta = { correlationId: 'audit-test' };

/** The service with a free limit and a price, whose bundler plans at once when asked (it is not started). */
export const startPricedService = (): Promise<TestService> =>
  startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: String(RATE), BUNDLE_MAX_WAIT_MS: '0' });

export async function upload(service: TestService, item: DataItem, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()), headers });
  await res.arrayBuffer();
  return res.status;
}

export async function uploaded(service: TestService, item: DataItem, headers: Record<string, string> = {}): Promise<void> {
  expect(await upload(service, item, headers), `upload of ${item.id}`).to.equal(200);
}

export async function credit(service: TestService, address: string, winc: bigint): Promise<void> {
  const { position } = await service.accounts.execute({ type: 'Credit', data: { address, winc, creditId: `credit-${winc}`, now: Date.now() } }, meta);
  await service.projections.waitFor(position!, 5000);
}

/** the payer address of an ethereum-signed item */
export const ethAddress = (item: DataItem) => nativeAddress(3, item.rawOwner);

/** one bundler pass: plans every queued item (its next step fails on the test gateway, which is fine) */
export async function planQueued(service: TestService): Promise<string[]> {
  const before = await livePlans(service);
  await service.bundler.runOnce();
  return (await livePlans(service)).filter((p) => !before.includes(p));
}

async function livePlans(service: TestService): Promise<string[]> {
  const page = await service.readStore.scan(collectionOf(liveBundlesProjection), { limit: 1000 });
  return page.map((p) => p.id);
}

export async function dropPlan(service: TestService, planId: string): Promise<void> {
  const { position } = await new BundleRepository(service.eventStore).execute(
    { type: 'Drop', data: { planId, reason: 'audit test drop', now: Date.now() } },
    meta,
  );
  await service.projections.waitFor(position!, 5000);
}

/** The audit over the service's own stores, findings sorted by kind then id (`blobGraceMs: 0` judges every blob, however young). */
export async function auditOf(
  service: TestService,
  { wallet = true, blobGraceMs = DEFAULT_BLOB_GRACE_MS } = {},
): Promise<{ findings: Finding[]; summary: AuditSummary }> {
  const findings: Finding[] = [];
  const servicePublicModulus = wallet ? await readServicePublicModulus({ walletFile: SERVICE_WALLET_FILE, dataDir: service.dataDir }) : undefined;
  const summary = await runAudit(
    { eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, servicePublicModulus, blobGraceMs, now: Date.now },
    (f) => findings.push(f),
  );
  findings.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
  return { findings, summary };
}

/** kind and id of each finding: what the corruption tests assert (details are checked where they matter) */
export const kindsAndIds = (findings: readonly Finding[]) => findings.map(({ kind, id }) => ({ kind, id }));

export { runScript, type CliResult } from '../support/runScript.js';
