// A receipt signing worker thread (started by receiptSigner.ts). Plain JavaScript on purpose: a
// worker of its own needs no TypeScript loader, which would cost each thread tens of MiB. It only
// signs: the message (the receipt's deep hash) is computed by the caller. Protocol: signWorkerProtocol.ts.
import { constants, sign } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';

const { privateKey } = workerData;
const pss = { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 0 };

parentPort.on('message', ({ seq, message }) => {
  try {
    parentPort.postMessage({ type: 'signed', seq, signature: sign('sha256', message, pss).toString('base64url') });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', seq, message: String(error?.message ?? error) });
  }
});
parentPort.postMessage({ type: 'ready' });
