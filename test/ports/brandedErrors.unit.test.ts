/**
 * Port errors are recognised across copies of their module. Mocha (through tsx) loads a module
 * imported dynamically, such as the EventStoreDB adapter, as a second copy of the modules it
 * imports: its errors are made by another class object than the one the caller imported, and
 * `instanceof` misses them. The second copy is made here by importing with a query string.
 */
import { expect } from 'chai';
import * as blobStore from '../../src/ports/blobStore.js';
import * as eventStore from '../../src/ports/eventStore.js';
import * as gatewayErrors from '../../src/ports/gatewayErrors.js';
import * as readStore from '../../src/ports/readStore.js';

const secondCopy = async <T>(path: string): Promise<T> => (await import(`${path}?copy=${Math.random()}`)) as T;

describe('port errors made by a second copy of their module', () => {
  it('are told apart by X.is, where instanceof misses them', async () => {
    const other = await secondCopy<typeof eventStore>('../../src/ports/eventStore.ts');
    expect(other.WrongExpectedRevision).not.to.equal(eventStore.WrongExpectedRevision);
    const conflict = new other.WrongExpectedRevision(eventStore.streamName('s'), 'no_stream', 0n);
    expect(conflict instanceof eventStore.WrongExpectedRevision).to.equal(false);
    expect(eventStore.WrongExpectedRevision.is(conflict)).to.equal(true);
    expect(eventStore.EventStoreUnavailable.is(conflict)).to.equal(false);
  });

  it('keeps the hierarchy: an AppendOutcomeUnknown is an EventStoreUnavailable, not the other way round', async () => {
    const other = await secondCopy<typeof eventStore>('../../src/ports/eventStore.ts');
    expect(eventStore.EventStoreUnavailable.is(new other.AppendOutcomeUnknown('cut'))).to.equal(true);
    expect(eventStore.AppendOutcomeUnknown.is(new other.AppendOutcomeUnknown('cut'))).to.equal(true);
    expect(eventStore.AppendOutcomeUnknown.is(new other.EventStoreUnavailable('down'))).to.equal(false);
    expect(eventStore.EventStoreRefused.is(new other.EventStoreRefused('too-large', 'big'))).to.equal(true);
  });

  it('holds for every port error class', async () => {
    const [es, rs, bs, gw] = await Promise.all([
      secondCopy<typeof eventStore>('../../src/ports/eventStore.ts'),
      secondCopy<typeof readStore>('../../src/ports/readStore.ts'),
      secondCopy<typeof blobStore>('../../src/ports/blobStore.ts'),
      secondCopy<typeof gatewayErrors>('../../src/ports/gatewayErrors.ts'),
    ]);
    const made: [unknown, (e: unknown) => boolean][] = [
      [new es.EventStoreUnavailable('down'), eventStore.EventStoreUnavailable.is],
      [new rs.CheckpointConflict('c', null, 1n), readStore.CheckpointConflict.is],
      [new rs.ReadStoreUnavailable('down'), readStore.ReadStoreUnavailable.is],
      [new bs.BlobNotFound('items/x'), blobStore.BlobNotFound.is],
      [new bs.BlobStoreUnavailable('full'), blobStore.BlobStoreUnavailable.is],
      [new gw.GatewayRequestError('timeout', { kind: 'timeout' }), gatewayErrors.GatewayRequestError.is],
      [new gw.GatewayRejected('no', 400, 'Bad Request'), gatewayErrors.GatewayRejected.is],
    ];
    expect(made.map(([e, is]) => is(e))).to.deep.equal(made.map(() => true));
    expect(made.map(([e]) => blobStore.BlobNotFound.is(e))).to.deep.equal([false, false, false, true, false, false, false]);
  });

  it('keep the brand out of JSON and deep comparisons', () => {
    const e = new blobStore.BlobNotFound('items/x');
    const enumerableSymbols = Object.getOwnPropertySymbols(e).filter((s) => Object.getOwnPropertyDescriptor(e, s)!.enumerable);
    expect(enumerableSymbols).to.deep.equal([]);
    expect(JSON.parse(JSON.stringify(e))).to.deep.equal({ key: 'items/x', name: 'BlobNotFound' });
    expect(e).to.deep.equal(new blobStore.BlobNotFound('items/x'));
  });
});
