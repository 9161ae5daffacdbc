import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How the service's process tunes V8's heap, once it has started (src/main.ts).
 *
 * The growing factor. After each full (mark-compact) collection V8 lets the old generation grow to
 * what is alive times a factor before it marks again; left to itself it derives the factor from how
 * fast the last collections ran against how fast the program promoted objects. A large upload reads
 * its socket in fresh 64 KiB buffers, hundreds of MiB a second; once that external memory sets off
 * one full collection, V8's factor there comes out near 1.6, which leaves less room than one young
 * generation's survivors, and the isolate marks and compacts again every 50 ms for the rest of the
 * upload (a 1 GiB multi-part upload: 20 to 50 mark-compacts, a third more CPU, in about a fifth of
 * the uploads of fresh services; docs/decisions.md, issue 39's third pass). A fixed factor of
 * `1 + percent/100` (V8's own `--heap-growing-percent`, read at each collection) keeps room enough;
 * 200 (three times what is alive, where V8's own factor goes up to four) made it none in 20 of 20.
 * 0 leaves V8's heuristic alone.
 *
 * The start's garbage. Loading the modules and opening the stores leave the old generation close to
 * the limit V8 set for it at start, and most of it garbage; left alone, V8 collects it when that
 * limit is reached, which was during the first request in 4 of 22 fresh starts of a 1 GiB upload.
 * Collected here, before the service says it listens, the limit is set from what is alive. The
 * collector is reached through V8's `--expose-gc` for the length of one call (node offers no other
 * way to ask for a collection) and the flag set back at once, so nothing else sees `gc`.
 */
export function tuneHeap(growingPercent: number): void {
  if (growingPercent > 0) setFlagsFromString(`--heap-growing-percent=${growingPercent}`);
  setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as () => void)();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
