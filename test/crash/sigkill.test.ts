import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startServiceProcess } from '../../scripts/lib/serviceProcess.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { storedBlob } from '../support/storedBlob.js';

describe('durability of receipts', function () {
  this.timeout(120_000);

  it('loses nothing that got a 200 when the process is SIGKILLed right after answering', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sigkill-'));
    const gateway = await startGatewayInfo(500);
    const env = { DATA_DIR: dataDir, WALLET_FILE: SERVICE_WALLET_FILE, GATEWAY_URL: gateway.url };
    try {
      const items = await Promise.all(Array.from({ length: 40 }, (_, i) => signedItem(signers.ethereum(), `item ${i}`)));
      const first = await startServiceProcess(env);
      let killed: Promise<void> | undefined;
      const answered: string[] = [];
      await Promise.all(
        items.map(async (item) => {
          try {
            const res = await fetch(`${first.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
            if (res.status === 200) {
              answered.push(item.id);
              killed ??= first.kill();
            }
          } catch {
            // connection cut by the kill: no receipt, no promise made
          }
        }),
      );
      await (killed ?? first.kill());
      expect(answered.length).to.be.greaterThan(0);

      const second = await startServiceProcess(env);
      try {
        for (const id of answered) {
          const res = await fetch(`${second.url}/tx/${id}/status`);
          expect(res.status, id).to.equal(200);
          expect((await res.json()).status).to.equal('CONFIRMED');
          const item = items.find((i) => i.id === id)!;
          const stored = await storedBlob(dataDir, `items/${id}`);
          expect(Buffer.compare(stored!, item.getRaw()), id).to.equal(0);
        }
      } finally {
        await second.stop();
      }
    } finally {
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
