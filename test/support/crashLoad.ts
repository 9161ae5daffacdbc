import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { DataItem, Signer } from 'arbundles';
import type { Receipt } from '../../src/domain/receipt.js';
import { nativeAddress } from '../../src/verify/index.js';
import { asBody, signedItem, signers } from './items.js';
import { itemOfSize } from './sizedItem.js';
import { seededRandom, type SeededRandom } from './seededRandom.js';

/**
 * The load of the crash tests: a mix of single uploads and multi-part uploads (new ones, re-sends
 * of earlier items, resumed uploads) run by a few concurrent clients against a service that is
 * SIGKILLed at some moment. A request cut by the kill is no promise; everything else the service
 * answers is checked against the contract as it comes, and every receipt is kept in a ledger for the
 * checks after the rounds.
 */

export interface CrashSigner {
  name: string;
  /** the `:token` of the routes */
  token: string;
  signer: Signer;
  /** the account charged for its items */
  address: string;
  /** credited too little for all its uploads: 402 is a right answer for its items */
  poor: boolean;
}

/** One signer of each kind (types 1, 3, 2 and 4), plus a poorly funded one, each made once for the run. */
export async function crashSigners(): Promise<CrashSigner[]> {
  const made = [
    { name: 'arweave', token: 'arweave', signer: signers.arweave(), poor: false },
    { name: 'ethereum', token: 'ethereum', signer: signers.ethereum(), poor: false },
    { name: 'solana', token: 'solana', signer: signers.solana(), poor: false },
    { name: 'hex-solana', token: 'solana', signer: signers.hexSolana(), poor: false },
    { name: 'poor ethereum', token: 'ethereum', signer: signers.ethereum(), poor: true },
  ];
  return Promise.all(
    made.map(async (s) => {
      const probe = await signedItem(s.signer, 'address probe');
      return { ...s, address: nativeAddress(probe.signatureType, probe.rawOwner) };
    }),
  );
}

export interface UploadProgress {
  id: string;
  chunkSize: number;
  /** offset → length of every chunk answered 200 */
  acked: Map<number, number>;
  /** an asynchronous finalize was answered 202: the service owes the end of it */
  asyncRequested: boolean;
  /** the payer could not pay (poor signer only): no receipt will come */
  underfunded: boolean;
  /** a client is working on it: another one does not resume it meanwhile */
  busy: boolean;
}

/** An item some client sent, what the service answered, and the receipt the client holds, if any. */
export interface Sent {
  id: string;
  raw: Buffer;
  signer: CrashSigner;
  via: 'single' | 'multipart';
  /** the round it was first sent in */
  round: number;
  receipt?: Receipt;
  /** what happened to it, round by round (for failure messages) */
  history: string[];
  upload?: UploadProgress;
}

export class CrashLedger {
  readonly items = new Map<string, Sent>();
  readonly problems: string[] = [];

  constructor(readonly seed: number) {}

  add(item: DataItem, signer: CrashSigner, via: Sent['via'], round: number): Sent {
    const sent: Sent = { id: item.id, raw: Buffer.from(item.getRaw()), signer, via, round, history: [] };
    this.items.set(sent.id, sent);
    return sent;
  }

  /** names seed, round and item, and what the item went through */
  describe(sent: Sent, round: number, what: string): string {
    return `seed ${this.seed}, round ${round}, item ${sent.id} (${sent.via}, ${sent.signer.name}, ${sent.raw.length} bytes, first sent in round ${sent.round}): ${what}\n    history: ${sent.history.join('; ')}`;
  }

  problem(sent: Sent, round: number, what: string): void {
    this.problems.push(this.describe(sent, round, what));
  }

  /**
   * A receipt came back (200, 202 `Data Item Exists`, or a finalized upload's status). The first one
   * is kept; any later one must be the same receipt (same timestamp and signature).
   */
  receipted(sent: Sent, round: number, receipt: Receipt | undefined, how: string): void {
    sent.history.push(`round ${round}: ${how} with a receipt`);
    if (receipt?.id !== sent.id) return this.problem(sent, round, `${how} answered a receipt for ${receipt?.id}`);
    if (!sent.receipt) sent.receipt = receipt;
    else if (!isDeepStrictEqual(sent.receipt, receipt)) {
      this.problem(sent, round, `${how} answered ${JSON.stringify(receipt)}, not the receipt the client holds ${JSON.stringify(sent.receipt)}`);
    }
  }
}

type Op =
  | { kind: 'single'; signer: number; payload: number; contentType: string }
  | { kind: 'multipart'; signer: number; size: number; chunkSize: number; finalize: 'sync' | 'async'; orderSeed: number }
  /** `pick` in [0, 1) chooses among the items known when the op runs */
  | { kind: 'resend'; pick: number }
  | { kind: 'resume'; pick: number };

/** Which signer: the poor one now and then, so some uploads run out of credits while others race. */
const SIGNER_WEIGHTS = [
  [0, 25],
  [1, 25],
  [2, 15],
  [3, 15],
  [4, 20],
] as const;
const CONTENT_TYPES = ['application/octet-stream', 'text/plain', 'image/png', 'application/json'];
const KiB = 1024;

/** The next operation of a round's plan: drawn in order, so the seed fixes the sequence whatever the timing. */
export function drawOp(rng: SeededRandom): Op {
  const kind = rng.weighted([
    ['single', 50],
    ['multipart', 20],
    ['resend', 15],
    ['resume', 15],
  ] as const);
  const signer = rng.weighted(SIGNER_WEIGHTS);
  switch (kind) {
    case 'single': {
      const band = rng.weighted([
        ['empty', 10],
        ['free', 35],
        ['medium', 35],
        ['large', 20],
      ] as const);
      const payload =
        band === 'empty' ? 0 : band === 'free' ? rng.int(1, 2 * KiB) : band === 'medium' ? rng.int(2 * KiB, 64 * KiB) : rng.int(64 * KiB, 300 * KiB);
      return { kind, signer, payload, contentType: rng.pick(CONTENT_TYPES) };
    }
    case 'multipart': {
      const size = rng.weighted([
        ['small', 30],
        ['medium', 40],
        ['large', 30],
      ] as const);
      const bytes = size === 'small' ? rng.int(3000, 16 * KiB) : size === 'medium' ? rng.int(16 * KiB, 128 * KiB) : rng.int(128 * KiB, 300 * KiB);
      // at most about 40 chunks: the rounds are short
      const chunkSize = Math.max(rng.pick([2500, 8 * KiB, 32 * KiB, 64 * KiB]), Math.ceil(bytes / 40));
      return { kind, signer, size: bytes, chunkSize, finalize: rng.next() < 0.35 ? 'async' : 'sync', orderSeed: rng.int(0, 2 ** 31) };
    }
    default:
      return { kind, pick: rng.next() };
  }
}

interface Answer {
  status: number;
  body: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One client population against one service process. Until `cutting()` is called every request must
 * be answered; after it, a request that fails is a request the kill cut (no answer, no promise).
 */
export class CrashClients {
  #cutting = false;

  constructor(
    private readonly url: string,
    private readonly round: number,
    private readonly ledger: CrashLedger,
    private readonly signers: readonly CrashSigner[],
  ) {}

  /** the kill is about to come: failures from here on are cuts */
  cutting(): void {
    this.#cutting = true;
  }

  get isCutting(): boolean {
    return this.#cutting;
  }

  /** `workers` clients run the plan drawn from `rng` until `cutting()` */
  async run(rng: SeededRandom, workers: number): Promise<void> {
    const worker = async () => {
      while (!this.#cutting) await this.perform(drawOp(rng));
    };
    await Promise.all(Array.from({ length: workers }, worker));
  }

  async perform(op: Op): Promise<void> {
    switch (op.kind) {
      case 'single': {
        const signer = this.signers[op.signer]!;
        const item = await signedItem(signer.signer, randomBytes(op.payload), [{ name: 'Content-Type', value: op.contentType }]);
        return this.sendSingle(this.ledger.add(item, signer, 'single', this.round), 'upload');
      }
      case 'multipart':
        return this.newUpload(op);
      case 'resend': {
        const all = [...this.ledger.items.values()];
        if (all.length === 0) return;
        return this.sendSingle(all[Math.floor(op.pick * all.length)]!, 're-send');
      }
      case 'resume': {
        const open = this.resumable();
        if (open.length === 0) return;
        return this.resume(open[Math.floor(op.pick * open.length)]!);
      }
    }
  }

  /** multi-part uploads that were created and may still end with a receipt */
  resumable(): Sent[] {
    return [...this.ledger.items.values()].filter((s) => s.upload && !s.receipt && !s.upload.underfunded && !s.upload.busy);
  }

  /** POST /tx/:token; a re-send of an item that has a receipt must answer 202 with that receipt */
  async sendSingle(sent: Sent, what: string): Promise<void> {
    const hadReceipt = sent.receipt !== undefined;
    const answer = await this.request(sent, `${what} as a single upload`, `/tx/${sent.signer.token}`, {
      method: 'POST',
      body: asBody(sent.raw),
      headers: { 'content-type': 'application/octet-stream' },
    });
    if (!answer) return;
    if (answer.status === 200 && hadReceipt)
      return this.ledger.problem(sent, this.round, `${what}: 200 for an item already accepted (202 Data Item Exists expected)`);
    if (answer.status === 200 || answer.status === 202) return this.ledger.receipted(sent, this.round, parse(answer.body), `${what}: ${answer.status}`);
    if (!(answer.status === 402 && sent.signer.poor)) this.unexpected(sent, what, answer);
  }

  private async newUpload(op: Extract<Op, { kind: 'multipart' }>): Promise<void> {
    const signer = this.signers[op.signer]!;
    const item = await itemOfSize(signer.signer, op.size);
    const sent = this.ledger.add(item, signer, 'multipart', this.round);
    const created = await this.request(sent, 'create upload', `/chunks/${signer.token}/-1/-1`);
    if (!created) return;
    if (created.status !== 200) return this.unexpected(sent, 'create upload', created);
    const id = parse<{ id: string }>(created.body)?.id;
    if (typeof id !== 'string') return this.ledger.problem(sent, this.round, `create upload answered ${created.body}`);
    sent.upload = { id, chunkSize: op.chunkSize, acked: new Map(), asyncRequested: false, underfunded: false, busy: true };
    try {
      const offsets = Array.from({ length: Math.ceil(sent.raw.length / op.chunkSize) }, (_, i) => i * op.chunkSize);
      if (!(await this.postChunks(sent, seededRandom(op.orderSeed).shuffled(offsets)))) return;
      await this.finalize(sent, op.finalize);
    } finally {
      sent.upload.busy = false;
    }
  }

  /** three at a time, in the given order; true when every one was answered 200 */
  private async postChunks(sent: Sent, offsets: number[]): Promise<boolean> {
    const upload = sent.upload!;
    const queue = [...offsets];
    let complete = true;
    const poster = async () => {
      for (let offset = queue.shift(); offset !== undefined; offset = queue.shift()) {
        if (this.#cutting || !complete) return;
        const bytes = sent.raw.subarray(offset, offset + upload.chunkSize);
        const answer = await this.request(sent, `chunk at ${offset}`, `/chunks/${sent.signer.token}/${upload.id}/${offset}`, {
          method: 'POST',
          body: asBody(bytes),
          headers: { 'content-type': 'application/octet-stream' },
        });
        if (answer?.status === 200) {
          upload.acked.set(offset, bytes.length);
          continue;
        }
        complete = false;
        if (!answer) return;
        if (answer.status === 402 && sent.signer.poor) upload.underfunded = true;
        else this.unexpected(sent, `chunk at ${offset}`, answer);
      }
    };
    await Promise.all([poster(), poster(), poster()]);
    return complete && !this.#cutting;
  }

  private async finalize(sent: Sent, mode: 'sync' | 'async'): Promise<void> {
    const upload = sent.upload!;
    const what = `${mode} finalize`;
    const answer = await this.request(sent, what, `/chunks/${sent.signer.token}/${upload.id}/${mode === 'sync' ? '-1' : 'finalize'}`, { method: 'POST' });
    if (!answer) return;
    if (answer.status === 200 || (mode === 'sync' && answer.status === 202)) {
      return this.ledger.receipted(sent, this.round, parse<{ data: Receipt }>(answer.body)?.data, `${what}: ${answer.status}`);
    }
    if (mode === 'async' && answer.status === 202) {
      sent.history.push(`round ${this.round}: ${what}: 202`);
      upload.asyncRequested = true;
      return this.awaitFinalized(sent);
    }
    if (answer.status === 402 && sent.signer.poor) {
      upload.underfunded = true;
      return;
    }
    this.unexpected(sent, what, answer);
  }

  /** polls the upload's status until it ends (or the kill comes, or `deadlineMs` passes) */
  async awaitFinalized(sent: Sent, deadlineMs = Number.POSITIVE_INFINITY): Promise<void> {
    const upload = sent.upload!;
    const until = Date.now() + deadlineMs;
    for (;;) {
      const answer = await this.request(sent, 'upload status', `/chunks/${sent.signer.token}/${upload.id}/status`);
      if (!answer) return;
      if (answer.status !== 200) return this.unexpected(sent, 'upload status', answer);
      const status = parse<{ status: string; receipt?: Receipt }>(answer.body);
      if (status?.status === 'FINALIZED') return this.ledger.receipted(sent, this.round, status.receipt, 'upload status FINALIZED');
      if (status?.status === 'UNDERFUNDED' && sent.signer.poor) {
        upload.underfunded = true;
        return;
      }
      if (status?.status !== 'VALIDATING' && status?.status !== 'FINALIZING') {
        return this.ledger.problem(sent, this.round, `upload ${upload.id} is ${answer.body} after a finalize was accepted`);
      }
      if (this.#cutting) return;
      if (Date.now() > until) return this.ledger.problem(sent, this.round, `upload ${upload.id} still ${status.status} after ${deadlineMs} ms`);
      await sleep(200);
    }
  }

  /**
   * Goes on with an upload as a client resuming after a lost connection: every chunk answered 200
   * must be listed by the view (with its length), the missing ones are sent, then it is finalized.
   */
  async resume(sent: Sent, deadlineMs?: number): Promise<void> {
    sent.upload!.busy = true;
    try {
      await this.resumeUpload(sent, deadlineMs);
    } finally {
      sent.upload!.busy = false;
    }
  }

  private async resumeUpload(sent: Sent, deadlineMs?: number): Promise<void> {
    const upload = sent.upload!;
    const base = `/chunks/${sent.signer.token}/${upload.id}`;
    const answer = await this.request(sent, 'resume: upload status', `${base}/status`);
    if (!answer) return;
    if (answer.status !== 200) return this.unexpected(sent, 'resume: upload status', answer);
    const status = parse<{ status: string; receipt?: Receipt }>(answer.body)?.status;
    if (status === 'FINALIZED' || status === 'VALIDATING' || status === 'FINALIZING') {
      return upload.asyncRequested ? this.awaitFinalized(sent, deadlineMs) : this.finalize(sent, 'sync');
    }
    if (status === 'UNDERFUNDED' && sent.signer.poor) {
      upload.underfunded = true;
      return;
    }
    if (status !== 'ASSEMBLING') return this.ledger.problem(sent, this.round, `resume: upload ${upload.id} is ${answer.body}`);

    const view = await this.request(sent, 'resume: view', `${base}/-1`);
    if (!view) return;
    if (view.status !== 200) return this.unexpected(sent, 'resume: view', view);
    const listed = new Map((parse<{ chunks: [number, number][] }>(view.body)?.chunks ?? []).map(([offset, length]) => [offset, length]));
    const lost = [...upload.acked].filter(([offset, length]) => listed.get(offset) !== length);
    if (lost.length > 0) {
      return this.ledger.problem(sent, this.round, `chunks answered 200 are missing from the view: ${JSON.stringify(lost)} (view ${view.body})`);
    }
    const offsets = Array.from({ length: Math.ceil(sent.raw.length / upload.chunkSize) }, (_, i) => i * upload.chunkSize);
    const missing = offsets.filter((offset) => !listed.has(offset));
    sent.history.push(`round ${this.round}: resume with ${missing.length} of ${offsets.length} chunks missing`);
    if (!(await this.postChunks(sent, missing))) return;
    await this.finalize(sent, 'sync');
  }

  /** the answer, read to its end; undefined when the request was cut (a problem unless the kill is coming) */
  private async request(sent: Sent, what: string, path: string, init?: RequestInit): Promise<Answer | undefined> {
    try {
      const res = await fetch(`${this.url}${path}`, init);
      return { status: res.status, body: await res.text() };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? String(error);
      if (this.#cutting) sent.history.push(`round ${this.round}: ${what} cut (${reason})`);
      else this.ledger.problem(sent, this.round, `${what} failed while the service was up: ${reason}`);
      return undefined;
    }
  }

  private unexpected(sent: Sent, what: string, answer: Answer): void {
    this.ledger.problem(sent, this.round, `${what} answered ${answer.status} ${answer.body.slice(0, 200)}`);
  }
}

function parse<T = Receipt>(body: string): T | undefined {
  try {
    return JSON.parse(body) as T;
  } catch {
    return undefined;
  }
}
