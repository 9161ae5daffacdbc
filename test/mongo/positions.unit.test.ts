import { expect } from 'chai';
import { BSON, Long } from 'mongodb';
import { decodePosition, encodePosition } from '../../src/adapters/mongo/positions.js';

/** what the server receives and what a collection opened with useBigInt64 gives back */
const roundTrip = (position: bigint) =>
  decodePosition(BSON.deserialize(BSON.serialize({ position: encodePosition(position) }), { useBigInt64: true }).position);

describe('MongoDB positions', function () {
  it('round-trips positions exactly, beyond 2^53 too', function () {
    for (const position of [0n, 1n, 2n ** 53n + 1n, 2n ** 60n + 3n, 2n ** 63n - 1n, -1n]) {
      expect(roundTrip(position)).to.equal(position);
    }
  });

  it('stores them as BSON int64, which the server compares as numbers', function () {
    const bytes = BSON.serialize({ position: encodePosition(2n ** 60n + 3n) });
    // element type 0x12 (int64) right after the 4-byte document length
    expect(bytes[4]).to.equal(0x12);
    expect(BSON.deserialize(bytes).position).to.be.instanceOf(Long);
  });

  it('keeps the order of positions in the order of their stored values', function () {
    const positions = [2n ** 63n - 1n, 0n, 2n ** 53n, 2n ** 53n + 1n, 7n, 2n ** 62n, -5n];
    const stored = positions.map((p) => BSON.deserialize(BSON.serialize({ p: encodePosition(p) })).p as Long | number);
    const asLong = (v: Long | number) => (typeof v === 'number' ? Long.fromNumber(v) : v);
    const byStored = positions.map((p, i) => ({ p, v: asLong(stored[i]!) })).sort((a, b) => a.v.compare(b.v));
    expect(byStored.map((x) => x.p)).to.deep.equal([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('refuses a position int64 would wrap (the serializer stores 2^63 as -2^63 without a word)', function () {
    expect(BSON.deserialize(BSON.serialize({ p: 2n ** 63n }), { useBigInt64: true }).p).to.equal(-(2n ** 63n));
    expect(() => encodePosition(2n ** 63n)).to.throw(RangeError);
    expect(() => encodePosition(-(2n ** 63n) - 1n)).to.throw(RangeError);
  });

  it('reads back positions stored as int32, double or Long, and refuses anything else', function () {
    expect(decodePosition(5)).to.equal(5n);
    expect(decodePosition(Long.fromBigInt(2n ** 60n))).to.equal(2n ** 60n);
    expect(() => decodePosition(1.5)).to.throw(TypeError);
    expect(() => decodePosition('5')).to.throw(TypeError);
    expect(() => decodePosition(undefined)).to.throw(TypeError);
  });
});
