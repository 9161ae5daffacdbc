import { expect } from 'chai';
import { candidateTargets } from '../../src/history/resolve.js';
import { topUpStream } from '../../src/domain/topUp/ids.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { otherSpellings } from '../support/idSpellings.js';

describe('npm run history: ids in another spelling', () => {
  it('reads a top-up claim by its canonical key first, then by the spelling given (a claim stored under it by an earlier version)', () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const upper = `0x${'AB'.repeat(32)}`;
    expect(candidateTargets(`ethereum:${upper}`)).to.deep.equal([
      { kind: 'topUp', id: `ethereum:${hash}`, stream: topUpStream(`ethereum:${hash}`) },
      { kind: 'topUp', id: `ethereum:${upper}`, stream: topUpStream(`ethereum:${upper}`) },
    ]);
    expect(candidateTargets(`ethereum:${hash}`)).to.deep.equal([{ kind: 'topUp', id: `ethereum:${hash}`, stream: topUpStream(`ethereum:${hash}`) }]);
  });

  it('reads a data item by its canonical id, whatever spelling is given', () => {
    const id = Buffer.alloc(32, 3).toString('base64url');
    for (const spelled of otherSpellings(id)) {
      expect(candidateTargets(spelled)[0], spelled).to.deep.equal({ kind: 'dataItem', id, stream: dataItemStream(id as DataItemId) });
    }
  });
});
