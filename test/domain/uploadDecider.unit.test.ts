import { expect } from 'chai';
import { decideUpload, type UploadCommand } from '../../src/domain/upload/decider.js';
import type { UploadEvent } from '../../src/domain/upload/events.js';
import { evolveUpload, type UploadState } from '../../src/domain/upload/state.js';
import { InvalidChunk, UploadAlreadyFinalized, UploadNotFound } from '../../src/domain/errors.js';
import type { Receipt } from '../../src/domain/receipt.js';
import { deciderSpec } from '../support/deciderSpec.js';

const U = 'upload-1';
const spec = deciderSpec<UploadCommand, UploadEvent, UploadState>({ initialState: undefined, evolve: evolveUpload, decide: decideUpload });
const receipt = { id: 'item-1', timestamp: 9, version: '1.0.0', public: 'n', signature: 's', deadlineHeight: 700, winc: '0', owner: 'o' } as unknown as Receipt;

const created: UploadEvent = { type: 'UploadCreated', data: { uploadId: U, token: 'arweave', timestamp: 1 } };
const chunk = (offset: number, length: number, c = 'a', timestamp = 2): UploadEvent => ({
  type: 'ChunkReceived',
  data: { uploadId: U, offset, length, blobKey: `chunks/${U}/${offset}/${c}`, timestamp },
});
/** `c` names the request's own blob; `sameBytesAs` the recorded chunk's blob its bytes were found to equal */
const receive = (offset: number, length: number, c = 'a', now = 2, sameBytesAs?: string): UploadCommand => ({
  type: 'ReceiveChunk',
  data: { uploadId: U, offset, length, blobKey: `chunks/${U}/${offset}/${c}`, ...(sameBytesAs ? { sameBytesAs } : {}), maxChunks: 3, now },
});
const finalizeRequested: UploadEvent = { type: 'UploadFinalizeRequested', data: { uploadId: U, mode: 'sync', paidBy: [], timestamp: 3 } };
const requestFinalize: UploadCommand = { type: 'RequestFinalize', data: { uploadId: U, mode: 'sync', paidBy: [], now: 3 } };
const validated: UploadEvent = { type: 'UploadValidated', data: { uploadId: U, dataItemId: 'item-1', size: 3000, timestamp: 4 } };
const underfunded: UploadEvent = { type: 'UploadUnderfunded', data: { uploadId: U, dataItemId: 'item-1', timestamp: 5 } };
const finalized: UploadEvent = { type: 'UploadFinalized', data: { uploadId: U, dataItemId: 'item-1', receipt, timestamp: 5 } };
const lifetimes = { lifetimeMs: 1000, headerlessLifetimeMs: 100 };

describe('upload decider (given / when / then)', () => {
  describe('creation', () => {
    it('creates an upload once', () => {
      spec
        .given([])
        .when({ type: 'CreateUpload', data: { uploadId: U, token: 'arweave', now: 1 } })
        .then([created]);
      spec
        .given([created])
        .when({ type: 'CreateUpload', data: { uploadId: U, token: 'arweave', now: 7 } })
        .thenNothing();
    });
  });

  describe('chunks', () => {
    it('records a chunk, and nothing for the same bytes sent again at that offset', () => {
      spec
        .given([created])
        .when(receive(0, 2500))
        .then([chunk(0, 2500)]);
      spec
        .given([created, chunk(0, 2500)])
        .when(receive(0, 2500, 'b', 8, `chunks/${U}/0/a`))
        .thenNothing();
    });

    it('records a re-send whose bytes equal a chunk replaced since as replacing the chunk there now', () => {
      const replacing = {
        type: 'ChunkReceived',
        data: { ...(chunk(0, 2500, 'b').data as object), replaced: { length: 2500, blobKey: `chunks/${U}/0/a` } },
      } as UploadEvent;
      spec
        .given([created, chunk(0, 2500), replacing])
        .when(receive(0, 2500, 'c', 8, `chunks/${U}/0/a`))
        .then([
          {
            type: 'ChunkReceived',
            data: { ...(chunk(0, 2500, 'c', 8).data as object), replaced: { length: 2500, blobKey: `chunks/${U}/0/b` } },
          } as UploadEvent,
        ]);
    });

    it("keeps the sha256 an earlier version's ChunkReceived recorded", () => {
      const earlier = { type: 'ChunkReceived', data: { ...(chunk(0, 2500).data as object), sha256: 'a'.repeat(64) } } as UploadEvent;
      const state = [created, earlier].reduce(evolveUpload, undefined as UploadState);
      expect(state?.chunks.get(0)).to.deep.equal({ offset: 0, length: 2500, sha256: 'a'.repeat(64), blobKey: `chunks/${U}/0/a` });
    });

    it('records other bytes at an offset as replacing the chunk there', () => {
      spec
        .given([created, chunk(0, 2500)])
        .when(receive(0, 2600, 'b'))
        .then([
          { type: 'ChunkReceived', data: { ...(chunk(0, 2600, 'b').data as object), replaced: { length: 2500, blobKey: `chunks/${U}/0/a` } } } as UploadEvent,
        ]);
    });

    it('refuses a chunk for an upload never created, or expired', () => {
      spec.given([]).when(receive(0, 2500)).thenThrows(UploadNotFound);
      spec
        .given([created, { type: 'UploadExpired', data: { uploadId: U, timestamp: 9 } }])
        .when(receive(0, 2500))
        .thenThrows(UploadNotFound);
    });

    it('refuses a chunk once finalize was asked', () => {
      spec
        .given([created, chunk(0, 2500), finalizeRequested])
        .when(receive(2500, 500))
        .thenThrows(UploadAlreadyFinalized);
    });

    it('refuses a chunk past maxChunks, a second short chunk and a short chunk before the last', () => {
      spec
        .given([created, chunk(0, 2500), chunk(2500, 2500), chunk(5000, 2500)])
        .when(receive(7500, 2500))
        .thenThrows(InvalidChunk, 'more than 3 chunks');
      spec
        .given([created, chunk(5000, 100)])
        .when(receive(6000, 100))
        .thenThrows(InvalidChunk, 'a second chunk shorter than 2500 bytes (the first at 5000)');
      spec
        .given([created, chunk(5000, 2500)])
        .when(receive(0, 100))
        .thenThrows(InvalidChunk, 'a chunk of 100 bytes at 0 is not the last');
    });
  });

  describe('finalization', () => {
    it('asks finalize once while assembling, and again after underfunded (the payer may have been credited)', () => {
      spec
        .given([created, chunk(0, 2500)])
        .when(requestFinalize)
        .then([finalizeRequested]);
      spec
        .given([created, chunk(0, 2500), finalizeRequested])
        .when(requestFinalize)
        .thenNothing();
      spec
        .given([created, chunk(0, 2500), finalizeRequested, validated, underfunded])
        .when(requestFinalize)
        .then([finalizeRequested]);
    });

    it('is validated only while validating, and finalized only while validating or finalizing', () => {
      const markValidated: UploadCommand = { type: 'MarkValidated', data: { uploadId: U, dataItemId: 'item-1', size: 3000, now: 4 } };
      const markFinalized: UploadCommand = { type: 'MarkFinalized', data: { uploadId: U, dataItemId: 'item-1', receipt, now: 5 } };
      spec.given([created, finalizeRequested]).when(markValidated).then([validated]);
      spec.given([created]).when(markValidated).thenNothing();
      spec.given([created, finalizeRequested, validated]).when(markFinalized).then([finalized]);
      spec.given([created, finalizeRequested, validated, finalized]).when(markFinalized).thenNothing();
      spec.given([created]).when(markFinalized).thenNothing();
    });

    it('records an invalid item or an underfunded payer only while finalizing', () => {
      const markInvalid: UploadCommand = { type: 'MarkInvalid', data: { uploadId: U, reason: 'bad signature', now: 5 } };
      spec
        .given([created, finalizeRequested])
        .when(markInvalid)
        .then([{ type: 'UploadInvalid', data: { uploadId: U, reason: 'bad signature', timestamp: 5 } }]);
      spec.given([created, finalizeRequested, validated, finalized]).when(markInvalid).thenNothing();
      const markUnderfunded: UploadCommand = { type: 'MarkUnderfunded', data: { uploadId: U, dataItemId: 'item-1', now: 5 } };
      spec.given([created, finalizeRequested, validated]).when(markUnderfunded).then([underfunded]);
    });
  });

  describe('expiry (decided on the stream, not on the read model the expirer scanned)', () => {
    const expire = (now: number): UploadCommand => ({ type: 'Expire', data: { uploadId: U, lifetimes, now } });
    const expired = (timestamp: number): UploadEvent => ({ type: 'UploadExpired', data: { uploadId: U, timestamp } });

    it('expires an upload past its lifetime, and not one finalized', () => {
      spec
        .given([created])
        .when(expire(1001))
        .then([expired(1001)]);
      spec.given([created, finalizeRequested, validated, finalized]).when(expire(5000)).thenNothing();
    });

    it('expires an upload with no header chunk after its short lifetime, counted from its last chunk', () => {
      spec
        .given([created, chunk(5000, 2500, 'a', 50)])
        .when(expire(149))
        .thenNothing();
      spec
        .given([created, chunk(5000, 2500, 'a', 50)])
        .when(expire(150))
        .then([expired(150)]);
    });
  });
});
