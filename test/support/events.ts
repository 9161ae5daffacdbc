import type { DataItemAccepted } from '../../src/domain/dataItem/events.js';

/** A well-formed DataItemAccepted for projection and decider specs (not signed: specs never verify it). */
export function dataItemAccepted(id: string, overrides: Partial<DataItemAccepted['data']> = {}): DataItemAccepted {
  const timestamp = overrides.timestamp ?? 1_700_000_000_000;
  return {
    type: 'DataItemAccepted',
    data: {
      id,
      signatureType: 1,
      owner: 'owner-address',
      nativeAddress: 'owner-address',
      token: 'arweave',
      rawContentLength: 1100,
      payloadDataStart: 1044,
      payloadContentType: 'text/plain',
      blobKey: `items/${id}`,
      sha256: '0'.repeat(64),
      winc: '0',
      timestamp,
      deadlineHeight: 1200,
      receipt: {
        id,
        owner: 'owner-address',
        dataCaches: ['arweave.net'],
        fastFinalityIndexes: [],
        deadlineHeight: 1200,
        timestamp,
        version: '0.2.0',
        winc: '0',
        public: 'modulus',
        signature: 'signature',
      },
      ...overrides,
    },
  };
}

/** a distinct item id per `n`, canonical as every real one is (the spare bits of its last character zero: CONTRACT.md section 10) */
export const itemId = (n: number) => `${n.toString().padStart(42, 'A')}A`;
