/** One figure of the results table: measured value, its baseline from the same run, its target. */
export interface Row {
  benchmark: string;
  figure: string;
  value: number;
  unit: string;
  baseline?: { value: number; unit: string; what: string };
  /** figure / baseline (or as the benchmark defines it; the notes say when it is the other way) */
  ratio?: number;
  target?: Target;
  notes?: string;
}

export interface Target {
  /** as printed: `ratio >= 0.6`, `< 300 MiB`, `0` */
  text: string;
  met: boolean;
}

/** targets of issue 7, each checked against a row's value or ratio */
export const atLeast = (value: number, min: number, text = `>= ${min}`): Target => ({ text, met: value >= min });
export const below = (value: number, max: number, text = `< ${max}`): Target => ({ text, met: value < max });

const number = (n: number) => {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
};

export const withUnit = (value: number, unit: string) => `${number(value)} ${unit}`.trim();

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** the table as markdown, missed targets marked `MISSED` so they stand out */
export function markdownTable(rows: Row[]): string {
  const lines = ['| benchmark | figure | value | baseline (same run) | ratio | target | met | notes |', '|---|---|---|---|---|---|---|---|'];
  for (const row of rows) {
    const baseline = row.baseline ? `${withUnit(row.baseline.value, row.baseline.unit)} (${row.baseline.what})` : '';
    const ratio = row.ratio === undefined ? '' : number(row.ratio);
    const met = row.target ? (row.target.met ? 'yes' : '**MISSED**') : '';
    const cells = [row.benchmark, row.figure, withUnit(row.value, row.unit), baseline, ratio, row.target?.text ?? '', met, row.notes ?? ''];
    lines.push(`| ${cells.map(cell).join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** the run a results page describes: when, where, on which code, how it went */
export interface RunFacts {
  startedAt: Date;
  seconds: number;
  quick: boolean;
  machine: { cpus: number; model: string; loadAverageAtEnd: number[] };
  /** `git describe`-like: the commit measured, `+ uncommitted changes` when the tree was not clean */
  commit: string;
  /** benchmarks that failed to run, with why */
  failed: string[];
}

/** the headline: only the figures that have a target, one short row each */
export function headlineTable(rows: Row[]): string {
  const lines = ['| benchmark | figure | value | ratio | target | met |', '|---|---|---|---|---|---|'];
  for (const row of rows.filter((r) => r.target)) {
    const cells = [row.benchmark, row.figure, withUnit(row.value, row.unit), row.ratio === undefined ? '' : number(row.ratio), row.target!.text];
    lines.push(`| ${[...cells, row.target!.met ? 'yes' : '**MISSED**'].map(cell).join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The page `npm run bench` writes (docs/benchmark-results.md for a full run; bench-results/results.md
 * always): the run's facts, the headline figures with their targets, then every figure.
 */
export function resultsPage(rows: Row[], run: RunFacts): string {
  const missed = rows.filter((r) => r.target && !r.target.met);
  const met = rows.filter((r) => r.target?.met).length;
  return [
    `# Benchmark results (${run.quick ? 'quick: small sizes, a smoke check' : 'full run'})`,
    '',
    '<!-- Written by `npm run bench` (scripts/bench/all.ts); how each benchmark works: docs/benchmarks.md. -->',
    '',
    `- date: ${run.startedAt.toISOString()}, ${run.seconds.toFixed(0)} s`,
    `- machine: ${run.machine.cpus} cores (${run.machine.model}), load average at the end ${run.machine.loadAverageAtEnd.join(' ')}`,
    `- commit: ${run.commit}`,
    `- targets met: ${met} of ${met + missed.length}`,
    '',
    '## Headline',
    '',
    headlineTable(rows),
    '## Every figure',
    '',
    'Each against a baseline measured in the same run on the same machine.',
    '',
    markdownTable(rows),
    run.failed.length > 0 ? `\nFailed to run: ${run.failed.join('; ')}\n` : '',
    missed.length > 0 ? `\nMISSED targets: ${missed.map((r) => `${r.benchmark}: ${r.figure.trim()} (${r.target!.text})`).join('; ')}\n` : '',
  ].join('\n');
}
