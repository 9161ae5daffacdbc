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
