import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { functionLengths } from '../../scripts/lib/functionLengths.js';

/** the longest a function of the service may grow: past it, it is doing several things (`npx tsx scripts/longestFunctions.ts` lists the longest) */
const FUNCTION_LINES_MAX = 150;
/** the composition root reads like the table of the service's roles (src/wiring/ holds each) */
const START_SERVICE_LINES_MAX = 80;

describe('function length', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));

  it(`no function in src/ or projections/ is over ${FUNCTION_LINES_MAX} lines`, async () => {
    const over = (await functionLengths(root, ['src', 'projections']))
      .filter((fn) => fn.lines > FUNCTION_LINES_MAX)
      .map((fn) => `${fn.file}:${fn.line} ${fn.name} (${fn.lines} lines)`);
    expect(over).to.deep.equal([]);
  });

  it(`startService is at most ${START_SERVICE_LINES_MAX} lines`, async () => {
    const [startService] = (await functionLengths(root, ['src'])).filter((fn) => fn.file === 'src/service.ts' && fn.name === 'startService');
    expect(startService, 'startService in src/service.ts').not.to.equal(undefined);
    expect(startService!.lines).to.be.at.most(START_SERVICE_LINES_MAX);
  });

  it('counts a function from its first line to its last, nested functions within it, arrows and methods by the name they are stored under', async () => {
    const lengths = await functionLengths(root, ['test/docs/fixtures']);
    expect(lengths.map(({ file, name, line, lines }) => `${file}:${line} ${name} ${lines}`)).to.deep.equal([
      'test/docs/fixtures/functions.ts:2 outer 10',
      'test/docs/fixtures/functions.ts:4 arrow 5',
      'test/docs/fixtures/functions.ts:5 inner 3',
      'test/docs/fixtures/functions.ts:14 method 3',
    ]);
  });
});
