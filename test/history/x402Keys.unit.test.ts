import { expect } from 'chai';
import { candidateTargets } from '../../src/history/resolve.js';
import { x402PaymentStream } from '../../src/domain/x402/decider.js';

describe('history: which stream an x402 payment id names', () => {
  it('reads an x402 settlement by the credit id its payer history shows, in any case', () => {
    const id = `x402:base-sepolia:0xffcf8fdee72ac11b5c542428b35eef5769c409f0:0x${'ab'.repeat(32)}`;
    expect(candidateTargets(id)).to.deep.equal([{ kind: 'x402Payment', id, stream: x402PaymentStream(id) }]);
    expect(candidateTargets(id.replace('0xffcf8fdee72ac11b5c542428b35eef5769c409f0', '0xFFcf8FDEE72ac11b5c542428B35EEF5769C409f0'))).to.deep.equal([
      { kind: 'x402Payment', id, stream: x402PaymentStream(id) },
    ]);
  });
});
