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
 */
export interface BodyRateLimits {
  /** 0: no rate check */
  minBytesPerSecond: number;
  graceMs: number;
  windowMs: number;
}

export const DEFAULT_BODY_RATE: BodyRateLimits = { minBytesPerSecond: 1024, graceMs: 10_000, windowMs: 30_000 };

interface Watch {
  req: IncomingMessage;
  received: () => number;
  lastTick: number;
  /** time so far during which the client was the one awaited */
  clientMs: number;
  /** in the current window: its time and the bytes received when it began; undefined during grace */
  window?: { ms: number; startBytes: number };
}

export interface BodyRateWatch {
  /** watches a body until the returned function is called; `received` counts its bytes read so far */
  watch(req: IncomingMessage, received: () => number): () => void;
  stop(): void;
}

/** One timer for every watched body, running only while there is one. */
export function createBodyRateWatch(limits: BodyRateLimits): BodyRateWatch {
  const watched = new Set<Watch>();
  const tickMs = Math.max(10, Math.min(1_000, Math.floor(Math.min(limits.graceMs || limits.windowMs, limits.windowMs) / 5)));
  const minPerWindow = (limits.minBytesPerSecond * limits.windowMs) / 1000;
  let timer: NodeJS.Timeout | undefined;

  function check(w: Watch, now: number): void {
    const elapsed = now - w.lastTick;
    w.lastTick = now;
    // the whole body is here, or bytes already here wait unread: the service is behind, not the client
    if (w.req.complete || w.req.readableLength > 0) return;
    w.clientMs += elapsed;
    if (!w.window) {
      if (w.clientMs >= limits.graceMs) w.window = { ms: 0, startBytes: w.received() };
      return;
    }
    w.window.ms += elapsed;
    if (w.window.ms < limits.windowMs) return;
    const bytes = w.received() - w.window.startBytes;
    if (bytes < minPerWindow) {
      watched.delete(w);
      w.req.destroy(new RequestTimeout(`${bytes} bytes in ${w.window.ms} ms`));
      return;
    }
    w.window = { ms: 0, startBytes: w.received() };
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
    watch(req, received) {
      if (limits.minBytesPerSecond <= 0) return () => {};
      const w: Watch = { req, received, lastTick: performance.now(), clientMs: 0 };
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
