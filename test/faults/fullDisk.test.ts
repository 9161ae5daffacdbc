import { expect } from 'chai';
import { open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { expectContractError } from '../support/hostileService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { canMountTmpfs, mountTmpfs, tmpfsNotRunMessage, type Tmpfs } from '../support/tmpfs.js';
import { SERVICE_WALLET_FILE, TEST_BLOCK_HEIGHT } from '../support/testService.js';
import { storedKeys } from '../support/hostileService.js';
import { smallBlobKeys } from '../support/storedBlob.js';

const MiB = 1024 * 1024;

/** Takes every free byte of the file system holding `dir` with one file (ENOSPC ends it). */
async function fillUp(file: string): Promise<void> {
  const handle = await open(file, 'w');
  const block = Buffer.alloc(MiB);
  try {
    for (;;) await handle.write(block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await handle.close();
  }
}

// The whole service on a real small disk: nothing simulated. Needs to mount a tmpfs (root).
if (canMountTmpfs) {
  describe('the service on a disk that fills up (a real 64 MiB tmpfs)', function () {
    this.timeout(60_000);
    let disk: Tmpfs;
    let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
    let service: RunningService;
    before(async function () {
      disk = mountTmpfs(64 * MiB);
      gateway = await startGatewayInfo(TEST_BLOCK_HEIGHT);
      const config = parseConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: join(disk.dir, 'data'),
        WALLET_FILE: SERVICE_WALLET_FILE,
        GATEWAY_URL: gateway.url,
        RECEIPT_SIGNER_WORKERS: '1',
        LOG_LEVEL: 'silent',
        BUNDLER_ENABLED: 'false',
        SHUTDOWN_GRACE_MS: '0',
        // the floor would refuse uploads before their bytes meet the full disk: this test wants the disk itself to say no
        MIN_FREE_DISK_BYTES: '0',
      });
      service = await startService(config, createLogger(config.logLevel));
    });
    after(async function () {
      await service?.stop();
      await gateway?.close();
      disk?.remove();
    });

    it('answers 503 Service unavailable to uploads and to /ready (naming the blob store) while full, keeps no item blob, and 200 again once space is back', async function () {
      const post = (body: Uint8Array) =>
        fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(body), headers: { 'content-type': 'application/octet-stream' } });
      // a file of its own, and a row of the small-blob file (SMALL_BLOB_MAX_BYTES)
      const items = [await signedItem(signers.arweave(), Buffer.alloc(300 * 1024, 1)), await signedItem(signers.arweave(), Buffer.alloc(40 * 1024, 2))];
      const filler = join(disk.dir, 'filler');
      await fillUp(filler);

      for (const item of items) await expectContractError(await post(item.getRaw()), 503, 'Service unavailable');
      const ready = await fetch(`${service.url}/ready`);
      expect(ready.status).to.equal(503);
      const body = await ready.json();
      expect(body.failed).to.include('blobStore');
      expect(body.checks.blobStore).to.deep.equal({ ok: false, error: 'BlobStoreUnavailable' });
      expect(await storedKeys(join(disk.dir, 'data'))).to.deep.equal([]);
      expect(await readdir(join(disk.dir, 'data', 'blobs', '.tmp'))).to.deep.equal([]);

      await rm(filler);
      for (const item of items) {
        const res = await post(item.getRaw());
        expect(res.status).to.equal(200);
        expect((await res.json()).id).to.equal(item.id);
        expect((await fetch(`${service.url}/v1/tx/${item.id}/status`)).status).to.equal(200);
      }
      expect((await fetch(`${service.url}/ready`)).status).to.equal(200);
      expect(smallBlobKeys(join(disk.dir, 'data'))).to.deep.equal([`items/${items[1]!.id}`]);
    });
  });
} else {
  describe('the service on a disk that fills up (a real 64 MiB tmpfs)', function () {
    it(tmpfsNotRunMessage);
  });
}
