import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { startArlocal, type Arlocal } from '../support/arlocal.js';
import { asBody, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { testServiceConfig } from '../support/testService.js';

/**
 * A new user's first run: the service pointed at arlocal with the README's settings, none of them
 * about arlocal (no BLOCK_HEIGHT_MAX_JUMP, no BUNDLE_CHUNK_CONCURRENCY). arlocal mines many blocks
 * at once and stores chunks in the order they arrive; the service tells it from its `/info` and
 * uses the settings that work there (src/adapters/gateway/gatewayProfile.ts). Without that, the
 * second bundle stalls (arlocal's height refused) and items read back scrambled at their offsets.
 */
describe('arlocal as the gateway, with the default settings', function () {
  this.timeout(180_000);
  /** as a developer mines on arlocal: far more at once than the default BLOCK_HEIGHT_MAX_JUMP (100) */
  const MANY_BLOCKS = 250;
  /** free items (at most FREE_UPLOAD_LIMIT_BYTES, 517,120) of one to three 256 KiB chunks of the bundle */
  const SIZES = [517_120, 40_000, 300_000, 262_144, 450_000, 120_000, 500_000, 90_000, 280_000, 517_000, 200_000, 400_000];

  let arlocal: Arlocal;
  let service: RunningService;
  let dataDir: string;
  const lines: { level: string; message: string }[] = [];
  const logs = () => lines.map((l) => `${l.level}: ${l.message}`).join('\n');

  before(async () => {
    arlocal = await startArlocal();
    dataDir = await mkdtemp(join(tmpdir(), 'upload-service-'));
    const config = testServiceConfig(dataDir, arlocal.url, { BUNDLE_MAX_WAIT_MS: '0' });
    // the defaults, as a new user has them
    expect([config.heightGuard.maxJumpBlocks, config.bundler.chunkConcurrency]).to.deep.equal([100, 32]);
    service = await startService(
      config,
      createLogger('warn', (line) => {
        const { level, message } = JSON.parse(line) as { level: string; message: string };
        lines.push({ level, message });
      }),
    );
    await arlocal.mint(service.walletAddress, '100000000000000000');
  });
  after(async () => {
    await service?.stop();
    await arlocal?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const statusOf = async (item: DataItem) => (await fetch(`${service.url}/tx/${item.id}/status`)).json();

  /**
   * the items read back wrong from arlocal at the offsets the service reports (`GET /tx/:id/offsets`
   * into the bundle as arlocal's data route assembles it from its chunks): each as `id (size at start)`
   */
  async function wrongAtOffsets(items: readonly DataItem[], bundleId: string): Promise<string[]> {
    const bundle = await arlocal.data(bundleId);
    const wrong: string[] = [];
    for (const item of items) {
      const offsets = await (await fetch(`${service.url}/tx/${item.id}/offsets`)).json();
      expect(offsets).to.include({ rootBundleId: bundleId, rawContentLength: item.getRaw().length });
      const raw = bundle.subarray(offsets.startOffsetInRootBundle, offsets.startOffsetInRootBundle + offsets.rawContentLength);
      if (!raw.equals(item.getRaw())) wrong.push(`${item.id} (${item.getRaw().length} bytes at ${offsets.startOffsetInRootBundle})`);
    }
    return wrong;
  }

  /**
   * uploads `items`, bundles them (read back before mining: arlocal cannot mine a bundle scrambled
   * at its start, and mines one scrambled further on), mines MANY_BLOCKS at once: the items
   * FINALIZED in one bundle
   */
  async function bundleAndMine(items: readonly DataItem[]): Promise<string> {
    for (const item of items) expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    await service.bundler.runOnce();
    const { bundleId } = await statusOf(items[0]!);
    for (const item of items) expect(await statusOf(item), logs()).to.include({ status: 'CONFIRMED', info: 'pending', bundleId });
    expect(await wrongAtOffsets(items, bundleId), 'items read back wrong from arlocal at their offsets, before mining').to.deep.equal([]);
    await arlocal.mine(MANY_BLOCKS);
    await service.bundler.runOnce();
    for (const item of items) expect(await statusOf(item), logs()).to.include({ status: 'FINALIZED', info: 'permanent', bundleId });
    return bundleId as string;
  }

  it('takes a dozen items of up to three chunks each to FINALIZED in two bundles, mining many blocks at once, and each reads back byte-exact from arlocal at its offsets', async () => {
    const items = await Promise.all(SIZES.map((size, i) => itemOfSize(i % 3 === 0 ? signers.arweave() : signers.ethereum(), size)));
    // the second bundle is prepared at arlocal's height after the first's MANY_BLOCKS
    const bundles = [await bundleAndMine(items.slice(0, 6)), await bundleAndMine(items.slice(6))];
    expect(bundles[0]).to.not.equal(bundles[1]);
    const wrong = [...(await wrongAtOffsets(items.slice(0, 6), bundles[0]!)), ...(await wrongAtOffsets(items.slice(6), bundles[1]!))];
    expect(wrong, 'items read back wrong from arlocal at their offsets').to.deep.equal([]);
  });

  it('says once, in one warning line, which settings it overrode for arlocal and why, and refuses none of its heights', () => {
    const about = lines.filter((l) => l.message.includes('arlocal'));
    expect(about).to.deep.equal([
      {
        level: 'warn',
        message:
          `gateway ${arlocal.url} is arlocal (network "arlocal.N.1"): overriding ` +
          'BUNDLE_CHUNK_CONCURRENCY 32 -> 1 (arlocal stores chunks in the order they arrive, whatever their offsets); ' +
          'BLOCK_HEIGHT_MAX_JUMP 100 -> 1000000 (arlocal mines many blocks at once)',
      },
    ]);
    expect(lines.filter((l) => l.message.includes('refused'))).to.deep.equal([]);
  });
});
