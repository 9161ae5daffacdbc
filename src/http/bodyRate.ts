import type { IncomingMessage } from 'node:http';
import { RequestTimeout } from '../domain/errors.js';

/**
 * Minimum body rate of uploads, against a client that keeps a body alive forever by trickling a
 * byte now and then (the idle timeout only cuts a body with no byte at all).
 *
 * No check during the first `graceMs` (connection set-up, a phone's radio waking up, TCP slow
 * start); then each `windowMs` must bring at least `minBytesPerSecond * windowMs / 1000` bytes.
 * The defaults (1 KiB/s over 30 s windows after 10 s) let a phone on a poor link (EDGE moves 10 to
 * 20 KiB/s) through a stall of most of a window, and cost a trickling client a real upload's bandwidth.
 * Time during which the service, not the client, is behind (received bytes wait unread: a slow disk,
 * a price being fetched) does not count against the client.
 *
 * The same rule times the other direction too (a payload read back, sendBlob.ts): there the bytes
 * are those the client took, and the service is behind while it reads the next ones from its disk.
 */
export interface BodyRateLimits {
  /** 0: no rate check */
  minBytesPerSecond: number;
  graceMs: number;
  windowMs: number;
}

export const DEFAULT_BODY_RATE: BodyRateLimits = { minBytesPerSecond: 1024, graceMs: 10_000, windowMs: 30_000 };

/** A transfer whose pace is watched: a body received, or a body sent. */
export interface Paced {
  /** bytes moved so far */
  bytes(): number;
  /** whether the client is the one awaited now (not the service, busy with its own work) */
  awaited(): boolean;
  /** ends the transfer: the client is too slow */
  cut(error: RequestTimeout): void;
}

interface Watch {
  paced: Paced;
  lastTick: number;
  /** time so far during which the client was the one awaited */
  clientMs: number;
  /** in the current window: its time and the bytes moved when it began; undefined during grace */
  window?: { ms: number; startBytes: number };
}

export interface PaceWatch {
  /** watches a transfer until the returned function is called */
  watch(paced: Paced): () => void;
  stop(): void;
}

/**
 * One timer for every watched transfer, running only while there is one: cuts a transfer slower
 * than `limits`. (One with no byte at all is the socket's idle timeout's: listen.ts.)
 */
export function createPaceWatch(limits: BodyRateLimits): PaceWatch {
  const watched = new Set<Watch>();
  const tickMs = Math.max(10, Math.min(1_000, Math.floor(Math.min(limits.graceMs || limits.windowMs, limits.windowMs) / 5)));
  const minPerWindow = (limits.minBytesPerSecond * limits.windowMs) / 1000;
  let timer: NodeJS.Timeout | undefined;

  const cut = (w: Watch, why: string) => {
    watched.delete(w);
    w.paced.cut(new RequestTimeout(why));
  };

  function check(w: Watch, now: number): void {
    const elapsed = now - w.lastTick;
    w.lastTick = now;
    // the service is behind, not the client
    if (!w.paced.awaited()) return;
    w.clientMs += elapsed;
    const bytes = w.paced.bytes();
    if (!w.window) {
      if (w.clientMs >= limits.graceMs) w.window = { ms: 0, startBytes: bytes };
      return;
    }
    w.window.ms += elapsed;
    if (w.window.ms < limits.windowMs) return;
    const moved = bytes - w.window.startBytes;
    if (moved < minPerWindow) {
      cut(w, `${moved} bytes in ${w.window.ms} ms`);
      return;
    }
    w.window = { ms: 0, startBytes: bytes };
  }

  // the monotonic clock (src/clock.ts): a step of the wall clock would cut every body at once (forward)
  // or give a slow one a free day (back)
  const tick = () => {
    const now = performance.now();
    for (const w of watched) check(w, now);
    if (watched.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    watch(paced) {
      if (limits.minBytesPerSecond <= 0) return () => {};
      const w: Watch = { paced, lastTick: performance.now(), clientMs: 0 };
      watched.add(w);
      if (!timer) {
        timer = setInterval(tick, tickMs);
        timer.unref();
      }
      return () => watched.delete(w);
    },
    stop() {
      watched.clear();
      clearInterval(timer);
      timer = undefined;
    },
  };
}

export interface BodyRateWatch {
  /** watches a body until the returned function is called; `received` counts its bytes read so far */
  watch(req: IncomingMessage, received: () => number): () => void;
  stop(): void;
}

/** The minimum rate of request bodies. */
export function createBodyRateWatch(limits: BodyRateLimits): BodyRateWatch {
  const pace = createPaceWatch(limits);
  return {
    watch: (req, received) =>
      pace.watch({
        bytes: received,
        // the whole body is here, or bytes already here wait unread: the service is behind, not the client
        awaited: () => !(req.complete || req.readableLength > 0),
        cut: (error) => req.destroy(error),
      }),
    stop: () => pace.stop(),
  };
}
