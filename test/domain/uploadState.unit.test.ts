import { expect } from 'chai';
import type { UploadEvent } from '../../src/domain/upload/events.js';
import { evolveUpload, type UploadState } from '../../src/domain/upload/state.js';
import type { Receipt } from '../../src/domain/receipt.js';

const U = 'upload-1';
const receipt = { id: 'item-1', timestamp: 9, version: '1.0.0', public: 'n', signature: 's', deadlineHeight: 700, winc: '0', owner: 'o' } as unknown as Receipt;
const created: UploadEvent = { type: 'UploadCreated', data: { uploadId: U, token: 'arweave', timestamp: 1 } };
const requested: UploadEvent = { type: 'UploadFinalizeRequested', data: { uploadId: U, mode: 'async', paidBy: ['payer-1'], timestamp: 3 } };
const validated: UploadEvent = { type: 'UploadValidated', data: { uploadId: U, dataItemId: 'item-1', size: 3000, timestamp: 4 } };
const underfunded: UploadEvent = { type: 'UploadUnderfunded', data: { uploadId: U, dataItemId: 'item-1', timestamp: 5 } };
const finalized: UploadEvent = { type: 'UploadFinalized', data: { uploadId: U, dataItemId: 'item-1', receipt, timestamp: 6 } };
const fold = (events: UploadEvent[]): UploadState => events.reduce(evolveUpload, undefined);
const pick = (state: UploadState) =>
  state && {
    status: state.status,
    statusChangedAt: state.statusChangedAt,
    ...('finalize' in state ? { finalize: state.finalize } : {}),
    ...('dataItemId' in state ? { dataItemId: state.dataItemId } : {}),
  };

describe('upload state by status', () => {
  it('holds the finalize request from validating on, and the item once validated', () => {
    expect(pick(fold([created, requested]))).to.deep.equal({ status: 'VALIDATING', statusChangedAt: 3, finalize: { mode: 'async', paidBy: ['payer-1'] } });
    expect(pick(fold([created, requested, validated]))).to.deep.equal({
      status: 'FINALIZING',
      statusChangedAt: 4,
      finalize: { mode: 'async', paidBy: ['payer-1'] },
      dataItemId: 'item-1',
    });
  });

  it('keeps the item of an underfunded try when finalizing is asked again', () => {
    expect(pick(fold([created, requested, validated, underfunded, { ...requested, data: { ...requested.data, timestamp: 7 } }]))).to.deep.equal({
      status: 'VALIDATING',
      statusChangedAt: 7,
      finalize: { mode: 'async', paidBy: ['payer-1'] },
      dataItemId: 'item-1',
    });
  });

  it('holds the item and its receipt once finalized', () => {
    const state = fold([created, requested, validated, finalized]);
    expect(state?.status === 'FINALIZED' ? { id: state.dataItemId, receipt: state.receipt } : undefined).to.deep.equal({ id: 'item-1', receipt });
  });

  it('folds a validation on a validating upload only (the decider records it on nothing else)', () => {
    expect(pick(fold([created, validated]))).to.deep.equal({ status: 'ASSEMBLING', statusChangedAt: 1 });
  });
});
