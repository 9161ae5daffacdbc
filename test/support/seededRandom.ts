/**
 * The tests' one seeded generator (mulberry32): the seed fixes what a run draws (random cases, piece
 * sizes, the crash tests' uploads, signers, chunk orders and kill times), so a failure printed with its
 * seed runs again the same. Called as a function it answers a number in [0, 1), so it goes wherever a
 * `() => number` does. Not for anything that must be unpredictable.
 */
export interface SeededRandom {
  /** in [0, 1) */
  (): number;
  /** in [0, 1): the same draw as calling it */
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
  return Object.assign(() => next(), {
    next,
    int,
    pick: <T>(choices: readonly T[]) => choices[Math.floor(next() * choices.length)]!,
    weighted<T>(choices: readonly (readonly [T, number])[]): T {
      const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
      let r = next() * total;
      for (const [choice, weight] of choices) {
        if (r < weight) return choice;
        r -= weight;
      }
      return choices[choices.length - 1]![0];
    },
    shuffled<T>(values: readonly T[]): T[] {
      const out = [...values];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  });
}
