import { expect } from 'chai';
import { MongoNetworkError, MongoServerError, MongoServerSelectionError, type TopologyDescription } from 'mongodb';
import { isDuplicateKey, isUnavailable } from '../../src/adapters/mongo/errors.js';

describe('MongoDB errors', function () {
  it('tells a duplicate key from other server errors', function () {
    expect(isDuplicateKey(new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 }))).to.equal(true);
    expect(isDuplicateKey(new MongoServerError({ message: 'bad value', code: 2 }))).to.equal(false);
    expect(isDuplicateKey(new Error('E11000'))).to.equal(false);
  });

  it('takes network trouble, a missing primary and a full disk (OutOfDiskSpace) for unavailability, and nothing else', function () {
    expect(isUnavailable(new MongoNetworkError('connection reset'))).to.equal(true);
    expect(isUnavailable(new MongoServerSelectionError('no server', { type: 'Unknown', servers: new Map() } as unknown as TopologyDescription))).to.equal(true);
    expect(isUnavailable(new MongoServerError({ message: 'not primary', code: 10107 }))).to.equal(true);
    expect(isUnavailable(new MongoServerError({ message: 'Insufficient free space for data files', code: 14031 }))).to.equal(true);
    expect(isUnavailable(new MongoServerError({ message: 'E11000', code: 11000 }))).to.equal(false);
    expect(isUnavailable(new TypeError('bug'))).to.equal(false);
  });
});
