import { expect } from 'chai';
import { parseCliArgs, UsageError } from '../../scripts/lib/cliArgs.js';

describe('command-line arguments of the operator scripts', () => {
  const dashed = `-${'M'.repeat(42)}`;
  const doubleDashed = `--${'x'.repeat(41)}`;
  const plain = 'A'.repeat(43);

  it('reads an id that begins with "-" (one base64url id in 64 does) as a positional argument, in its place', () => {
    const parsed = parseCliArgs([plain, dashed, '--json', doubleDashed], { json: { type: 'boolean' } });
    expect(parsed.positionals).to.deep.equal([plain, dashed, doubleDashed]);
    expect(parsed.values).to.deep.equal({ json: true });
  });

  it('reads a plan id (22 characters) and an upload id (24) that begin with "-" as positional arguments', () => {
    const planId = `-U${'a'.repeat(20)}`;
    const uploadId = `-${'b'.repeat(23)}`;
    expect(parseCliArgs([planId, '--json', uploadId], { json: { type: 'boolean' } }).positionals).to.deep.equal([planId, uploadId]);
  });

  it("keeps an id-shaped option value as the option's value", () => {
    const parsed = parseCliArgs(['--reason', dashed, plain], { reason: { type: 'string' } });
    expect(parsed.values).to.deep.equal({ reason: dashed });
    expect(parsed.positionals).to.deep.equal([plain]);
  });

  it('still refuses an unknown option, and a dashed word that is not id-shaped', () => {
    expect(() => parseCliArgs(['--jsn', plain], { json: { type: 'boolean' } })).to.throw(UsageError, "Unknown option '--jsn'");
    expect(() => parseCliArgs([`-${'M'.repeat(20)}`], {})).to.throw(UsageError, "Unknown option '-M'");
    expect(() => parseCliArgs([`-${'M'.repeat(64)}`], {})).to.throw(UsageError, "Unknown option '-M'");
  });

  it('takes everything after "--" as positional, as node:util does', () => {
    expect(parseCliArgs(['--', '--json', dashed], { json: { type: 'boolean' } }).positionals).to.deep.equal(['--json', dashed]);
  });
});
