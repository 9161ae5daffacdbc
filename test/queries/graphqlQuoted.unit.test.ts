import { expect } from 'chai';
import { quoted } from '../../src/queries/graphql/execute.js';

describe('GraphQL answer text: strings quoted as JSON.stringify quotes them', () => {
  it('writes every single code unit, escaped or not, as JSON.stringify does', () => {
    const differing: number[] = [];
    for (let unit = 0; unit <= 0xffff; unit++) {
      const value = `a${String.fromCharCode(unit)}b`;
      if (quoted(value) !== JSON.stringify(value)) differing.push(unit);
    }
    expect(differing).to.deep.equal([]);
  });

  it('writes quotes, backslashes, control characters, surrogate pairs and lone surrogates as JSON.stringify does', () => {
    const values = [
      '',
      'plain-id_0123',
      'say "hi"',
      'C:\\path',
      'line\nbreak\ttab\u0000nul\u001f',
      '\u2028\u2029\u007f',
      'emoji \ud83d\ude00 pair',
      'lone \ud83d high',
      'lone \ude00 low',
    ];
    expect(values.map(quoted)).to.deep.equal(values.map((v) => JSON.stringify(v)));
    expect(quoted('say "hi"')).to.equal('"say \\"hi\\""');
    expect(quoted('lone \ud83d high')).to.equal('"lone \\ud83d high"');
  });
});
