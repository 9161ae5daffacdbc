import { Agent, request } from 'node:http';
import { percentile } from './stats.js';

export interface Answer {
  status: number;
  body: Buffer;
}

/** One request on a keep-alive agent; the whole answer read (its bytes are part of the cost). */
export function send(agent: Agent, url: string, method: string, body?: Buffer, headers: Record<string, string | number> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent, headers: body ? { 'content-type': 'application/octet-stream', 'content-length': body.length, ...headers } : headers },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const keepAliveAgent = (maxSockets: number) => new Agent({ keepAlive: true, maxSockets });

/** Latencies and failures of one kind of request. */
export class Tally {
  readonly latencies: number[] = [];
  errors = 0;
  /** the first few failures, for the report */
  readonly samples: string[] = [];

  ok(ms: number): void {
    this.latencies.push(ms);
  }

  fail(what: string): void {
    this.errors++;
    if (this.samples.length < 5) this.samples.push(what);
  }

  summary(seconds: number) {
    const round = (n: number) => Number(n.toFixed(1));
    return {
      requests: this.latencies.length + this.errors,
      perSecond: round(this.latencies.length / seconds),
      p50Ms: round(percentile(this.latencies, 50)),
      p99Ms: round(percentile(this.latencies, 99)),
      errors: this.errors,
      ...(this.samples.length > 0 ? { errorSamples: this.samples } : {}),
    };
  }
}

/**
 * Runs `clients` loops until `deadline` (performance.now() ms), each awaiting `step` again and
 * again: a closed loop, so the rate is what the server sustains at that concurrency.
 * `step` returns false when it has nothing more to do (its loop ends early).
 */
export async function closedLoop(clients: number, deadline: number, step: (client: number) => Promise<boolean | void>): Promise<void> {
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < deadline) if ((await step(client)) === false) return;
    }),
  );
}

/**
 * An open loop: `step` started at `perSecond` a second, on schedule whatever the answers' latency,
 * until `deadline` (performance.now()), at most `maxInFlight` at once (a start due while that many
 * are out waits for one to end, and the loop then catches up, until the deadline); resolves once
 * every step started has ended. `step` answering false stops it. Answers how many were started.
 */
export async function pacedLoop(perSecond: number, maxInFlight: number, deadline: number, step: () => Promise<boolean | void>): Promise<number> {
  const started = performance.now();
  const running = new Set<Promise<void>>();
  let count = 0;
  let stop = false;
  while (!stop) {
    const due = started + (count * 1000) / perSecond;
    if (due >= deadline) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    while (running.size >= maxInFlight) await Promise.race(running);
    // behind schedule, it catches up until the deadline, not after
    if (stop || performance.now() >= deadline) break;
    const run: Promise<void> = step().then((result) => {
      if (result === false) stop = true;
    });
    const tracked = run.finally(() => running.delete(tracked));
    running.add(tracked);
    count++;
  }
  await Promise.all(running);
  return count;
}
