import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import { countedSigner, createReceiptSigner, startSignWorker, type ReceiptSigner } from '../../src/receipts/receiptSigner.js';
import type { SignWorkerData } from '../../src/receipts/signWorkerProtocol.js';
import { verifyReceipt } from '../../src/receipts/verifyReceipt.js';
import { loadTestJwk } from '../fixtures/testWallet.js';

const jwk = loadTestJwk();
const unsigned = (i: number) => ({ id: `item-${i}`, deadlineHeight: 1_500_000 + i, timestamp: 1_700_000_000_000 + i });
const verifies = (i: number, signature: string) => verifyReceipt({ ...unsigned(i), version: '0.2.0', public: jwk.n, signature });
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Starts real signing workers and keeps them, and how many requests each was sent, for the test to inspect. */
function recordingStarter(onPost?: (worker: Worker) => void) {
  const started: { worker: Worker; requests: number }[] = [];
  const start = (data: SignWorkerData): Worker => {
    const worker = startSignWorker(data);
    const entry = { worker, requests: 0 };
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (message: unknown) => {
      entry.requests++;
      post(message);
      onPost?.(worker);
    };
    started.push(entry);
    return worker;
  };
  return { start, started };
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error as Error,
  );
  if (!outcome) throw new Error('expected a rejection');
  return outcome;
}

describe('receipt signer worker pool', () => {
  let signer: ReceiptSigner | undefined;
  afterEach(async () => {
    await signer?.close();
    signer = undefined;
  });

  it('resolves 200 concurrent requests, each with a signature that verifies', async () => {
    signer = createReceiptSigner({ jwk, workers: 2 });
    const signatures = await Promise.all(range(200).map((i) => signer!.sign(unsigned(i))));

    const results = await Promise.all(signatures.map((signature, i) => verifies(i, signature)));
    expect(results.filter(Boolean).length).to.equal(200);
  });

  it('sends each request to the worker with the fewest in flight', async () => {
    const { start, started } = recordingStarter();
    signer = createReceiptSigner({ jwk, workers: 2, startWorker: start });
    await Promise.all(range(200).map((i) => signer!.sign(unsigned(i))));

    expect(started.map((s) => s.requests)).to.deep.equal([100, 100]);
  });

  it('retries the requests of a worker that dies, replaces it, and keeps signing', async () => {
    const { start, started } = recordingStarter();
    const logged: string[] = [];
    signer = createReceiptSigner({ jwk, workers: 2, startWorker: start, log: (m) => logged.push(m) });
    const first = range(20).map((i) => signer!.sign(unsigned(i)));
    await started[0]!.worker.terminate();

    const firstSignatures = await Promise.all(first);
    const later = await Promise.all(range(10).map((i) => signer!.sign(unsigned(100 + i))));

    expect(started.length).to.equal(3);
    expect(logged).to.have.length(1);
    // terminate() gives exit code 0 or 1 depending on how far the worker had started
    expect(logged[0]).to.match(/^receipt signing worker \d+ stopped \(exit code [01]\); 10 requests pending$/);
    expect(await Promise.all(firstSignatures.map((s, i) => verifies(i, s)))).to.deep.equal(range(20).map(() => true));
    expect(await Promise.all(later.map((s, i) => verifies(100 + i, s)))).to.deep.equal(range(10).map(() => true));
  });

  it('rejects a request whose worker dies a second time', async () => {
    // Every worker is killed as soon as it is sent a request.
    const { start } = recordingStarter((worker) => void worker.terminate());
    signer = createReceiptSigner({ jwk, workers: 2, startWorker: start, log: () => {} });

    const error = await rejectionOf(signer.sign(unsigned(1)));
    expect(error.message).to.equal('receipt signing worker died twice while signing');
  });

  it('rejects instead of waiting forever when its workers cannot start', async () => {
    const broken = () => new Worker('throw new Error("cannot load the signing module")', { eval: true });
    signer = createReceiptSigner({ jwk, workers: 1, startWorker: broken, log: () => {} });

    const error = await rejectionOf(signer.sign(unsigned(1)));
    expect(error.message).to.equal('no receipt signing worker is running (last failure: cannot load the signing module)');
  });

  it('rejects values that would sign a string no client rebuilds', async () => {
    signer = createReceiptSigner({ jwk, workers: 1 });
    const errors = await Promise.all([
      rejectionOf(signer.sign({ ...unsigned(1), deadlineHeight: 1.5 })),
      rejectionOf(signer.sign({ ...unsigned(1), timestamp: Number.NaN })),
      rejectionOf(signer.sign({ ...unsigned(1), id: '' })),
    ]);
    expect(errors.map((e) => e.message)).to.deep.equal([
      'cannot sign a receipt: deadlineHeight must be a non-negative integer',
      'cannot sign a receipt: timestamp must be a non-negative integer',
      'cannot sign a receipt: id must be a non-empty string',
    ]);
  });

  it('rejects pending and later requests once closed, and stops its workers', async () => {
    const { start, started } = recordingStarter();
    const closing = createReceiptSigner({ jwk, workers: 2, startWorker: start });
    const pending = rejectionOf(closing.sign(unsigned(1)));
    await closing.close();

    expect((await pending).message).to.equal('receipt signer is closed');
    expect((await rejectionOf(closing.sign(unsigned(2)))).message).to.equal('receipt signer is closed');
    expect(started.map((s) => s.worker.threadId)).to.deep.equal([-1, -1]);
  });
});

describe('a counted signer (the appends on their way, for the event store commit delay)', () => {
  it('counts the receipts being signed, and no longer one that was signed or failed', async () => {
    const answers: { resolve: (signature: string) => void; reject: (error: Error) => void }[] = [];
    const inner: ReceiptSigner = {
      sign: () => new Promise<string>((resolve, reject) => answers.push({ resolve, reject })),
      close: async () => {},
    };
    const signer = countedSigner(inner);
    expect(signer.signing()).to.equal(0);
    const first = signer.sign(unsigned(1));
    const second = signer.sign(unsigned(2));
    expect(signer.signing()).to.equal(2);
    answers[0]!.resolve('signature-1');
    expect(await first).to.equal('signature-1');
    expect(signer.signing()).to.equal(1);
    answers[1]!.reject(new Error('worker died'));
    expect((await rejectionOf(second)).message).to.equal('worker died');
    expect(signer.signing()).to.equal(0);
  });
});
