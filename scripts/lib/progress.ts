/** Where progress goes: stderr, so stdout keeps only the result. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressReporter {
  update(done: number, total: number, eventsPerSecond: number): void;
  /** the last figures on a line of their own (the bar ends its line) */
  finish(): void;
}

/** `1:02:03`, `2:03`, or `?` while there is no rate to divide by */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  const two = (n: number) => String(n).padStart(2, '0');
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

const percentOf = (done: number, total: number) => (total > 0 ? Math.min(100, (100 * done) / total) : 100);
const etaOf = (done: number, total: number, rate: number) => formatEta(rate > 0 ? (total - done) / rate : Number.NaN);

/** for logs and pipes: `12000/40000 events (30.0%), 8000 events/s, ETA 0:04` */
export function progressLine(done: number, total: number, rate: number): string {
  return `${done}/${total} events (${percentOf(done, total).toFixed(1)}%), ${Math.round(rate)} events/s, ETA ${etaOf(done, total, rate)}`;
}

/** for a terminal: `[######--------------]  30.0%  12000/40000 events  8000 events/s  ETA 0:04` */
export function progressBar(done: number, total: number, rate: number, width = 30): string {
  const percent = percentOf(done, total);
  const filled = Math.round((percent / 100) * width);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
  return `${bar} ${percent.toFixed(1).padStart(5)}%  ${done}/${total} events  ${Math.round(rate)} events/s  ETA ${etaOf(done, total, rate)}`;
}

/**
 * On a terminal, one line redrawn in place at every update; otherwise (a log, a pipe) a plain line
 * at the first update and then every `everyMs`, so a long rebuild leaves a readable trace.
 */
export function progressReporter(stream: ProgressStream, options: { label: string; everyMs?: number; now?: () => number }): ProgressReporter {
  const { label, everyMs = 5000, now = Date.now } = options;
  let last: [number, number, number] | undefined;
  let printedAt: number | undefined;
  let lastPrinted: [number, number, number] | undefined;
  const plain = (figures: [number, number, number]) => {
    stream.write(`${label}: ${progressLine(...figures)}\n`);
    lastPrinted = figures;
  };
  return {
    update(done, total, rate) {
      last = [done, total, rate];
      if (stream.isTTY) {
        // \x1b[K clears what a longer previous line left at the end
        stream.write(`\r${label} ${progressBar(done, total, rate)}\x1b[K`);
        return;
      }
      if (printedAt !== undefined && now() - printedAt < everyMs) return;
      printedAt = now();
      plain(last);
    },
    finish() {
      if (last === undefined) return;
      if (stream.isTTY) stream.write('\n');
      else if (lastPrinted !== last) plain(last);
    },
  };
}
