import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { acceptDataItem, type AcceptDeps } from '../../src/app/acceptance/acceptDataItem.js';
import { receiveDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import { createFixedPricing } from '../../src/adapters/pricing/fixedPricing.js';
import { accountStream } from '../../src/domain/account/ids.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { ServiceUnavailable } from '../../src/domain/errors.js';
import type { StreamName } from '../../src/ports/eventStore.js';
import { nativeAddress } from '../../src/verify/index.js';
import type { ReceiptSigner } from '../../src/receipts/receiptSigner.js';

/**
 * acceptDataItem signs no receipt without a block height fresh enough (BlockHeightSource.current()
 * undefined), whatever way the item came in: the routes' refusal before the body (blockHeightGate.ts)
 * is not the only guard.
 */
describe('acceptance without a fresh block height', function () {
  this.timeout(60_000);
  let service: TestService;
  let signed: number;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  const types = async (stream: StreamName) => {
    const found: string[] = [];
    for await (const r of service.eventStore.readStream(stream)) found.push(r.type);
    return found;
  };

  async function attempt(tag: string, current: () => number | undefined) {
    const item = await signedItem(signers.ethereum(), tag);
    const owner = nativeAddress(3, item.rawOwner);
    await service.accounts.execute(
      { type: 'Credit', data: { address: owner, winc: 10_000n, creditId: `credit-${tag}`, now: Date.now() } },
      { correlationId: 'test' },
    );
    const countingSigner: ReceiptSigner = {
      sign: (unsigned) => {
        signed++;
        return service.multipart.accept.signer.sign(unsigned);
      },
      close: async () => {},
    };
    const deps: AcceptDeps = {
      ...service.multipart.accept,
      pricing: createFixedPricing({ wincPerByte: 1n }),
      signer: countingSigner,
      blockHeight: { current },
    };
    const received = await receiveDataItem([item.getRaw()], { blobStore: service.blobStore, maxSize: 1 << 20 });
    let failure: unknown;
    await acceptDataItem(received, { token: 'arweave', ctx: { requestId: tag } }, deps).catch((error: unknown) => (failure = error));
    return { id: item.id as DataItemId, owner, failure };
  }

  beforeEach(() => {
    signed = 0;
  });

  it('answers ServiceUnavailable, signs nothing and reserves nothing when no fresh height is known', async () => {
    const { id, owner, failure } = await attempt('no height', () => undefined);
    expect(failure).to.be.instanceOf(ServiceUnavailable);
    expect(signed).to.equal(0);
    expect(await types(dataItemStream(id))).to.deep.equal([]);
    expect(await types(accountStream(owner))).to.deep.equal(['AccountCredited']);
    expect(await service.blobStore.stat(`items/${id}`)).to.equal(undefined);
  });

  it('answers ServiceUnavailable when the height grows too old between the price and the signature: the reservation is given back', async () => {
    const heights = [1_000];
    const { id, owner, failure } = await attempt('height gone', () => heights.shift());
    expect(failure).to.be.instanceOf(ServiceUnavailable);
    expect(signed).to.equal(0);
    expect(await types(dataItemStream(id))).to.deep.equal([]);
    expect(await types(accountStream(owner))).to.deep.equal(['AccountCredited', 'BalanceReserved', 'ReservationReleased']);
    expect(await service.blobStore.stat(`items/${id}`)).to.equal(undefined);
  });
});
