// Worker for the benchmarks: signs 1 KiB-class ANS-104 items with arbundles (plain JS: no TS loader needed).
import { parentPort, workerData } from 'node:worker_threads';
import { randomBytes } from 'node:crypto';
import { ArweaveSigner, createData } from 'arbundles';

const { jwk, count, payloadBytes } = workerData;
const signer = new ArweaveSigner(jwk);
const items = [];
for (let i = 0; i < count; i++) {
  const item = createData(randomBytes(payloadBytes), signer, { tags: [{ name: 'Content-Type', value: 'application/octet-stream' }] });
  await item.sign(signer);
  items.push(item.getRaw());
}
parentPort.postMessage(items);
