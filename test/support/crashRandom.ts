/**
 * A small seeded generator (mulberry32) for the crash tests: the seed fixes what a run does (which
 * uploads, what sizes, which signers, chunk orders, when each kill falls), so a failure printed with
 * its seed can be run again with the same plan. Not for anything that must be unpredictable.
 */
export interface SeededRandom {
  /** in [0, 1) */
  next(): number;
  /** an integer in [lo, hi] */
  int(lo: number, hi: number): number;
  pick<T>(choices: readonly T[]): T;
  /** one of `choices`, each as likely as its weight */
  weighted<T>(choices: readonly (readonly [T, number])[]): T;
  /** a copy of `values` in a random order (Fisher-Yates) */
  shuffled<T>(values: readonly T[]): T[];
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    pick: (choices) => choices[Math.floor(next() * choices.length)]!,
    weighted(choices) {
      const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
      let r = next() * total;
      for (const [choice, weight] of choices) {
        if (r < weight) return choice;
        r -= weight;
      }
      return choices[choices.length - 1]![0];
    },
    shuffled(values) {
      const out = [...values];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  };
}
