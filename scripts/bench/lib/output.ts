/**
 * Output of a benchmark: readable lines by default; with `--json` the same lines go to stderr and
 * stdout carries exactly one JSON line (what `npm run bench` collects).
 */
export const jsonMode = process.argv.includes('--json');

export function say(line: string): void {
  (jsonMode ? process.stderr : process.stdout).write(`${line}\n`);
}

export function emitJson(result: object): void {
  if (jsonMode) process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** rounded for the JSON line (figures, not noise) */
export const round = (n: number, digits = 1) => Number(n.toFixed(digits));
