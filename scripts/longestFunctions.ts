/**
 * `npx tsx scripts/longestFunctions.ts [count]`: the longest functions in src/ and projections/, one line each
 * (lines, file:line, name), longest first; 10 unless a count is given. test/docs/functionLength.unit.test.ts holds
 * every one of them to FUNCTION_LINES_MAX.
 */
import { fileURLToPath } from 'node:url';
import { functionLengths } from './lib/functionLengths.js';

const count = Number(process.argv[2] ?? 10);
const root = fileURLToPath(new URL('..', import.meta.url));
for (const fn of (await functionLengths(root, ['src', 'projections'])).slice(0, count)) {
  process.stdout.write(`${String(fn.lines).padStart(5)}  ${fn.file}:${fn.line}  ${fn.name}\n`);
}
