import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { parseConfig } from '../../src/config.js';

describe('RETAIN_PERMANENT_BYTES_MS', () => {
  let service: TestService | undefined;
  after(() => service?.close());

  it('is seven days by default', () => {
    expect(parseConfig({ WALLET_FILE: 'w.json' }).retention.retainMs).to.equal(7 * 86_400_000);
  });

  it('-1 keeps every item’s bytes forever: no retention pass runs', async () => {
    service = await startTestService({ RETAIN_PERMANENT_BYTES_MS: '-1' });
    expect(service.retention).to.equal(undefined);
  });
});
