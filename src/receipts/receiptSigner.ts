import { createPrivateKey, type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { RECEIPT_VERSION } from '../domain/receipt.js';
import type { RsaPrivateJwk } from '../wallet/rsaJwk.js';
import { receiptMessage, type UnsignedReceipt } from './receiptMessage.js';
import type { SignRequest, SignResponse, SignWorkerData } from './signWorkerProtocol.js';

/**
 * Signs receipts on a pool of worker threads: an RSA-4096 signature costs milliseconds of CPU, the
 * most expensive step of a small upload, so it must not run on the event loop, and all cores sign.
 */
export interface ReceiptSigner {
  /** resolves to the base64url RSA-PSS signature of the receipt message (see receiptMessage.ts) */
  sign(unsigned: UnsignedReceipt): Promise<string>;
  /** rejects what is still pending and stops the workers */
  close(): Promise<void>;
}

export interface ReceiptSignerOptions {
  jwk: RsaPrivateJwk;
  /** default: one per core */
  workers?: number;
  log?: (message: string) => void;
  /** starts one signing worker; the default runs signWorker.mjs (tests wrap it to kill workers) */
  startWorker?: (data: SignWorkerData) => Worker;
}

export class ReceiptSigningError extends Error {
  override readonly name = 'ReceiptSigningError';
}

export const startSignWorker = (workerData: SignWorkerData): Worker => new Worker(new URL('./signWorker.mjs', import.meta.url), { workerData });

interface Pending {
  request: UnsignedReceipt;
  resolve: (signature: string) => void;
  reject: (error: Error) => void;
  /** a request whose worker died is sent once more, then fails */
  retried: boolean;
}

interface Slot {
  worker: Worker;
  /** kept: a worker's threadId reads -1 once it has exited */
  threadId: number;
  inFlight: Map<number, Pending>;
  ready: boolean;
  failure?: Error;
}

export function createReceiptSigner({
  jwk,
  workers = availableParallelism(),
  log = (message) => console.warn(message),
  startWorker = startSignWorker,
}: ReceiptSignerOptions): ReceiptSigner {
  // Parsed once here, so a bad key fails at once and every worker receives a ready KeyObject.
  const privateKey: KeyObject = createPrivateKey({ key: jwk, format: 'jwk' });
  const slots: Slot[] = [];
  let nextSeq = 0;
  let closed = false;
  let lastFailure = '';

  function spawn(): void {
    const worker = startWorker({ privateKey });
    const slot: Slot = { worker, threadId: worker.threadId, inFlight: new Map(), ready: false };
    slot.worker.on('message', (response: SignResponse) => onResponse(slot, response));
    slot.worker.on('error', (error) => (slot.failure = error));
    slot.worker.on('exit', (code) => onExit(slot, code));
    slots.push(slot);
  }

  function onResponse(slot: Slot, response: SignResponse): void {
    if (response.type === 'ready') {
      slot.ready = true;
      return;
    }
    const pending = slot.inFlight.get(response.seq);
    if (!pending) return;
    slot.inFlight.delete(response.seq);
    if (response.type === 'signed') pending.resolve(response.signature);
    else pending.reject(new ReceiptSigningError(`receipt signing failed: ${response.message}`));
  }

  function onExit(slot: Slot, code: number): void {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    if (closed) return;
    lastFailure = slot.failure?.message ?? `exit code ${code}`;
    log(`receipt signing worker ${slot.threadId} stopped (${lastFailure}); ${slot.inFlight.size} requests pending`);
    // A worker that crashed before it was ready (its module or key does not load) would crash again.
    if (slot.ready || !slot.failure) spawn();
    for (const pending of slot.inFlight.values()) {
      if (pending.retried) pending.reject(new ReceiptSigningError('receipt signing worker died twice while signing'));
      else {
        pending.retried = true;
        dispatch(pending);
      }
    }
  }

  function dispatch(pending: Pending): void {
    let target: Slot | undefined;
    for (const slot of slots) if (!target || slot.inFlight.size < target.inFlight.size) target = slot;
    if (!target) {
      pending.reject(new ReceiptSigningError(`no receipt signing worker is running (last failure: ${lastFailure})`));
      return;
    }
    const seq = nextSeq++;
    target.inFlight.set(seq, pending);
    // the deep hash is microseconds of work: done here, so the worker is plain JavaScript that only signs
    target.worker.postMessage({ seq, message: receiptMessage(pending.request, RECEIPT_VERSION) } satisfies SignRequest);
  }

  for (let i = 0; i < Math.max(1, workers); i++) spawn();

  return {
    sign({ id, deadlineHeight, timestamp }) {
      if (closed) return Promise.reject(new ReceiptSigningError('receipt signer is closed'));
      const invalid = invalidField({ id, deadlineHeight, timestamp });
      if (invalid) return Promise.reject(new TypeError(`cannot sign a receipt: ${invalid}`));
      return new Promise((resolve, reject) => dispatch({ request: { id, deadlineHeight, timestamp }, resolve, reject, retried: false }));
    },
    async close() {
      closed = true;
      const closing = new ReceiptSigningError('receipt signer is closed');
      for (const slot of slots) for (const pending of slot.inFlight.values()) pending.reject(closing);
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}

/** The signed strings come from these values, so `1.5` or `NaN` would sign something no client rebuilds. */
function invalidField({ id, deadlineHeight, timestamp }: UnsignedReceipt): string | undefined {
  if (typeof id !== 'string' || id.length === 0) return 'id must be a non-empty string';
  if (!Number.isSafeInteger(deadlineHeight) || deadlineHeight < 0) return 'deadlineHeight must be a non-negative integer';
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) return 'timestamp must be a non-negative integer';
  return undefined;
}

/** The signer of a process that serves no commands: nothing there signs receipts. */
export const unavailableSigner: ReceiptSigner = {
  sign: () => Promise.reject(new ReceiptSigningError('this process does not sign receipts (its role serves no commands)')),
  close: async () => {},
};

/**
 * A signer that counts its receipts being signed: an upload appends its acceptance within
 * milliseconds of its receipt's signature, so this is how many appends are on their way (the event
 * store's commit delay waits for them under load: eventStoreWorkerWriter.ts, groupWait).
 */
export function countedSigner(signer: ReceiptSigner): ReceiptSigner & { signing(): number } {
  let signing = 0;
  return {
    async sign(unsigned) {
      signing += 1;
      try {
        return await signer.sign(unsigned);
      } finally {
        signing -= 1;
      }
    },
    close: () => signer.close(),
    signing: () => signing,
  };
}
