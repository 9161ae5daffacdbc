import { expect } from 'chai';
import { bestEffort } from '../../src/bestEffort.js';

describe('bestEffort', () => {
  it("resolves to the step's value when it succeeds", async () => {
    expect(await bestEffort(Promise.resolve(42), 'a test')).to.equal(42);
  });

  it('resolves to undefined when the step fails, so the failure is dropped and never unhandled', async () => {
    expect(await bestEffort(Promise.reject(new Error('disk gone')), 'a test')).to.equal(undefined);
  });
});
