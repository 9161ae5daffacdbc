import { expect } from 'chai';
import fc from 'fast-check';
import type { UploadEvent } from '../../src/domain/upload/events.js';
import { evolveUpload, tileChunks, type Upload, type UploadState } from '../../src/domain/upload/state.js';

/**
 * Property-based fuzzing of the check that decides whether a multi-part upload's chunks make up its
 * item (tileChunks, run by finalizeUpload): for arbitrary chunk sets, recorded the way the upload
 * stream records them (the same offset again replaces the chunk), it says yes exactly when the
 * chunks tile [0, size): every byte in exactly one chunk, no chunk empty, every chunk but the last at
 * least the minimum chunk length (scaled down here to MIN_CHUNK, so short chunks are frequent), and
 * then size is the end of the last chunk. The reference below counts bytes instead of walking sorted offsets.
 *
 * Seeded: a failure prints its seed and path; replay it with FUZZ_SEED=<seed>.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 7411);
const UPLOAD_ID = 'u'.repeat(24);
const MIN_CHUNK = 20;

interface Piece {
  offset: number;
  length: number;
}

/** the upload after its chunks are received in this order, as the upload stream evolves it */
function uploadWith(pieces: readonly Piece[]): Upload {
  const events: UploadEvent[] = [
    { type: 'UploadCreated', data: { uploadId: UPLOAD_ID, token: 'arweave', timestamp: 1 } },
    ...pieces.map(({ offset, length }, i): UploadEvent => ({
      type: 'ChunkReceived',
      data: { uploadId: UPLOAD_ID, offset, length, sha256: i.toString(16).padStart(64, '0'), blobKey: `uploads/${UPLOAD_ID}/data`, timestamp: 2 + i },
    })),
  ];
  const upload = events.reduce<UploadState>(evolveUpload, undefined);
  if (!upload) throw new Error('no upload');
  return upload;
}

/** the reference: byte counting over the chunks that survive (the last one sent at each offset) */
function tiles(pieces: readonly Piece[]): { size: number } | undefined {
  const last = new Map<number, Piece>();
  for (const piece of pieces) last.set(piece.offset, piece);
  const kept = [...last.values()];
  if (kept.length === 0 || kept.some((p) => p.length <= 0 || p.offset < 0)) return undefined;
  const size = Math.max(...kept.map((p) => p.offset + p.length));
  const covered = new Uint8Array(size);
  for (const p of kept) for (let b = p.offset; b < p.offset + p.length; b++) covered[b] = (covered[b] as number) + 1;
  // only the chunk that ends the item may be short
  const shortBeforeEnd = kept.some((p) => p.length < MIN_CHUNK && p.offset + p.length < size);
  return covered.every((count) => count === 1) && !shortBeforeEnd ? { size } : undefined;
}

/** lengths that add up to `size`, all but the last at least MIN_CHUNK: a true tiling, to perturb */
const tilingArb = fc.tuple(fc.array(fc.integer({ min: MIN_CHUNK, max: 90 }), { maxLength: 9 }), fc.integer({ min: 1, max: 90 })).map(([full, last]) => {
  const lengths = [...full, last];
  const pieces: Piece[] = [];
  let offset = 0;
  for (const length of lengths) {
    pieces.push({ offset, length });
    offset += length;
  }
  return pieces;
});

type Change =
  | { kind: 'drop'; index: number }
  | { kind: 'resend'; index: number; length: number }
  | { kind: 'add'; offset: number | 'end'; length: number }
  | { kind: 'split'; index: number; at: number }
  | { kind: 'duplicate'; index: number };

/** zero-length chunks often: the HTTP layer refuses them, this check must not rely on that */
const lengthArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 120 }));
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), index: fc.nat() }),
  // the same offset sent again with another length: shorter (a gap), longer (an overlap), or zero
  fc.record({ kind: fc.constant('resend' as const), index: fc.nat(), length: lengthArb }),
  // anywhere: inside (an overlap), right at the end (a longer tiling), past it (a gap), before 0
  fc.record({
    kind: fc.constant('add' as const),
    offset: fc.oneof(fc.constant('end' as const), fc.integer({ min: -2, max: 1000 })),
    length: lengthArb,
  }),
  // one chunk as two: still a tiling
  fc.record({ kind: fc.constant('split' as const), index: fc.nat(), at: fc.nat() }),
  // the identical chunk again: records nothing new
  fc.record({ kind: fc.constant('duplicate' as const), index: fc.nat() }),
);

function perturbed(pieces: readonly Piece[], changes: readonly Change[]): Piece[] {
  const out = [...pieces];
  for (const change of changes) {
    if (out.length === 0 && change.kind !== 'add') continue;
    const i = 'index' in change ? change.index % out.length : 0;
    const piece = out[i]!;
    switch (change.kind) {
      case 'drop':
        out.splice(i, 1);
        break;
      case 'resend':
        out.push({ offset: piece.offset, length: change.length });
        break;
      case 'add': {
        const end = Math.max(0, ...out.map((p) => p.offset + p.length));
        out.push({ offset: change.offset === 'end' ? end : change.offset, length: change.length });
        break;
      }
      case 'split': {
        if (piece.length < 2) break;
        const at = 1 + (change.at % (piece.length - 1));
        out.splice(i, 1, { offset: piece.offset, length: at }, { offset: piece.offset + at, length: piece.length - at });
        break;
      }
      case 'duplicate':
        out.push({ ...piece });
        break;
    }
  }
  return out;
}

/** the order chunks arrive in: any permutation (clients send in parallel; Irys sends offset 0 last) */
const shuffled = <T>(items: readonly T[], keys: readonly number[]): T[] =>
  items
    .map((item, i) => ({ item, key: keys[i % Math.max(1, keys.length)] ?? 0, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map(({ item }) => item);

function expectVerdictOf(pieces: readonly Piece[]): void {
  const tiling = tileChunks(uploadWith(pieces).chunks, MIN_CHUNK);
  const expected = tiles(pieces);
  expect(tiling.ok, JSON.stringify(pieces)).to.equal(expected !== undefined);
  if (tiling.ok && expected) {
    expect(tiling.size).to.equal(expected.size);
    const offsets = tiling.ordered.map((c) => c.offset);
    expect(offsets).to.deep.equal([...offsets].sort((a, b) => a - b));
    expect(tiling.ordered.reduce((n, c) => n + c.length, 0)).to.equal(expected.size);
  }
}

describe('bad input: property-based fuzzing of the multi-part chunk tiling', () => {
  it('accepts a chunk set exactly when it tiles [0, size), for perturbed tilings received in any order', () => {
    fc.assert(
      fc.property(tilingArb, fc.array(changeArb, { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 16 }), (tiling, changes, order) => {
        expectVerdictOf(shuffled(perturbed(tiling, changes), order));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('accepts a chunk set exactly when it tiles [0, size), for arbitrary chunk sets', () => {
    const piece = fc.record({ offset: fc.integer({ min: -2, max: 200 }), length: fc.integer({ min: 0, max: 80 }) });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => expectVerdictOf(pieces)),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('accepts every true tiling, whatever order its chunks arrive in', () => {
    fc.assert(
      fc.property(tilingArb, fc.array(fc.nat(), { maxLength: 16 }), (tiling, order) => {
        const pieces = shuffled(tiling, order);
        expect(tiles(pieces)).to.not.equal(undefined);
        expectVerdictOf(pieces);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
