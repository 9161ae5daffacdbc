import { expect } from 'chai';
import { accountDifferences } from '../../src/audit/checks/accountDiff.js';
import { initialAccountState } from '../../src/domain/account/state.js';
import type { SerializedAccount } from '../../src/domain/account/serialized.js';

describe('audit: an account document against its events', () => {
  const hash = `0x${'ab'.repeat(32)}`;
  const doc = (creditIds: string[]): SerializedAccount => ({ creditIds, credited: '10', spent: '0', reservations: {}, approvals: {} });
  const replay = (creditIds: string[]) => ({ ...initialAccountState, creditIds: new Set(creditIds), credited: 10n });

  it('agrees with a document projected before credit ids were canonical (two spellings of one transfer read as one)', () => {
    expect(accountDifferences(doc([`ethereum:0x${'AB'.repeat(32)}`, `ethereum:${hash}`]), replay([`ethereum:${hash}`]))).to.deep.equal([]);
  });

  it('still reports a credit id the events do not have', () => {
    expect(accountDifferences(doc([`ethereum:${hash}`, 'invoice-7']), replay([`ethereum:${hash}`]))).to.deep.equal([
      `credit ids: read model [ethereum:${hash}, invoice-7], events [ethereum:${hash}]`,
    ]);
  });
});
