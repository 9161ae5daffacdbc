import { expect } from 'chai';
import { escapeRegExp, underPrefix } from '../../src/adapters/mongo/blobPrefix.js';

describe('GridFS blob prefixes', function () {
  const keys = ['uploads/u1', 'uploads/u1/0', 'uploads/u1/10', 'uploads/u10/0', 'uploads/u2/0', 'items/u1', 'x/uploads/u1/0'];

  it('matches the keys strictly under prefix/, and not the prefix itself nor a longer segment', function () {
    expect(keys.filter((k) => underPrefix('uploads/u1').test(k))).to.deep.equal(['uploads/u1/0', 'uploads/u1/10']);
  });

  it('is anchored and flagless, so the server can walk the index range of the prefix', function () {
    const pattern = underPrefix('uploads/u1');
    expect(pattern.source.startsWith('^')).to.equal(true);
    expect(pattern.flags).to.equal('');
  });

  it('escapes every character a regular expression gives a meaning to', function () {
    const special = '.*+?^${}()|[]\\';
    expect(new RegExp(`^${escapeRegExp(special)}$`).test(special)).to.equal(true);
    expect(underPrefix('a.b').test('axb/c')).to.equal(false);
    expect(underPrefix('a.b').test('a.b/c')).to.equal(true);
    expect(underPrefix('.tmp').test('.tmp/abc/1')).to.equal(true);
    expect(underPrefix('.tmp').test('xtmp/abc/1')).to.equal(false);
  });
});
