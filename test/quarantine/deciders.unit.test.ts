import { expect } from 'chai';
import { decide, evolve, initialState, type DataItemCommand } from '../../src/domain/dataItem/decider.js';
import type { DataItemEvent } from '../../src/domain/dataItem/events.js';
import { decideBundle, type BundleCommand } from '../../src/domain/bundle/decider.js';
import type { BundleEvent } from '../../src/domain/bundle/events.js';
import { evolveBundle, type BundleState } from '../../src/domain/bundle/state.js';
import { ItemAlreadyPosted, ItemQuarantined, TxNotFound } from '../../src/domain/errors.js';
import { parseConfig } from '../../src/config.js';
import { ruleFor, type ItemFacts } from '../../src/domain/quarantine/rules.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const given = (events: DataItemEvent[]) => events.reduce(evolve, initialState);
const id = itemId(1);
const accepted = dataItemAccepted(id);
const hold: DataItemCommand = { type: 'QuarantineItem', data: { id, by: 'alice', reason: 'spam', now: 7 } };
const held: DataItemEvent = { type: 'DataItemQuarantined', data: { id, by: 'alice', reason: 'spam', timestamp: 7 } };
const release: DataItemCommand = { type: 'ReleaseItem', data: { id, by: 'bob', reason: 'reviewed', now: 9 } };
const released: DataItemEvent = { type: 'DataItemReleased', data: { id, by: 'bob', reason: 'reviewed', timestamp: 9 } };

describe('quarantine in the data item decider', () => {
  it('holds an accepted item once, with who and why; a second hold decides nothing', () => {
    expect(decide(hold, given([accepted]))).to.deep.equal({ events: [held] });
    expect(given([accepted, held])).to.deep.include({ quarantined: { by: 'alice', reason: 'spam', at: 7 } });
    expect(decide({ ...hold, data: { ...hold.data, by: 'carol' } } as DataItemCommand, given([accepted, held]))).to.deep.equal({ events: [] });
  });

  it('releases a held item once; releasing an item not held decides nothing', () => {
    expect(decide(release, given([accepted, held]))).to.deep.equal({ events: [released] });
    expect(given([accepted, held, released])).to.not.have.property('quarantined');
    expect(decide(release, given([accepted]))).to.deep.equal({ events: [] });
  });

  it('refuses to hold or release an item never accepted', () => {
    expect(() => decide(hold, given([]))).to.throw(TxNotFound);
    expect(() => decide(release, given([]))).to.throw(TxNotFound);
  });

  it("records a rule's hold in the acceptance's own append", () => {
    const rule = { by: 'rule:spam', reason: 'known spam shape', rule: 'spam' };
    expect(decide({ type: 'AcceptDataItem', data: accepted.data, hold: rule }, given([])).events).to.deep.equal([
      accepted,
      { type: 'DataItemQuarantined', data: { id, ...rule, timestamp: accepted.data.timestamp } },
    ]);
  });

  it('refuses to requeue a FAILED item while it is held', () => {
    const failed: DataItemEvent = { type: 'DataItemFailed', data: { id, attempts: 10, reason: 'dropped', timestamp: 5 } };
    const requeue: DataItemCommand = { type: 'RequeueItem', data: { id, by: 'alice', reason: 'retry', now: 8 } };
    expect(() => decide(requeue, given([accepted, failed, held]))).to.throw(ItemQuarantined);
    expect(decide(requeue, given([accepted, failed, held, released])).events.map((e) => e.type)).to.deep.equal(['DataItemRequeued']);
  });
});

describe('a hold against the bundle decider', () => {
  const P = 'plan-1';
  const items = [
    { id, size: 10, offset: 224 },
    { id: itemId(2), size: 20, offset: 234 },
  ];
  const planned: BundleEvent = { type: 'BundlePlanned', data: { planId: P, items, headerSize: 224, totalSize: 254, timestamp: 1 } };
  const prepared: BundleEvent = {
    type: 'BundlePrepared',
    data: {
      planId: P,
      itemIds: [id, itemId(2)],
      txId: 't'.repeat(43),
      reward: '1',
      anchor: 'a',
      dataRoot: 'r',
      dataSize: 254,
      anchorHeight: 3,
      tx: {},
      timestamp: 2,
    },
  };
  const bundleGiven = (events: BundleEvent[]): BundleState => events.reduce(evolveBundle, undefined as BundleState);
  const dropForHold: BundleCommand = { type: 'DropForHold', data: { planId: P, itemId: id, by: 'alice', now: 5 } };

  it('drops a bundle only planned, counting no attempt of its items', () => {
    expect(decideBundle(dropForHold, bundleGiven([planned]))).to.deep.equal([
      {
        type: 'BundleDropped',
        data: {
          planId: P,
          reason: `item ${id} quarantined by alice: planned again without it`,
          itemIds: [id, itemId(2)],
          countsAsAttempt: false,
          timestamp: 5,
        },
      },
    ]);
  });

  it('refuses once the bundle is signed, and the signature decides nothing once the hold dropped it', () => {
    expect(() => decideBundle(dropForHold, bundleGiven([planned, prepared]))).to.throw(ItemAlreadyPosted);
    const dropped = decideBundle(dropForHold, bundleGiven([planned]));
    const { type: _, ...signature } = { type: 'MarkPrepared', ...prepared.data };
    const markPrepared = { type: 'MarkPrepared', data: { ...signature, now: 3 } } as unknown as BundleCommand;
    expect(decideBundle(markPrepared, bundleGiven([planned, ...dropped]))).to.deep.equal([]);
  });
});

describe('quarantine rules', () => {
  const rulesOf = (rules: unknown) => parseConfig({ QUARANTINE_RULES: JSON.stringify(rules) }).quarantineRules;
  const item = (facts: Partial<ItemFacts>): ItemFacts => ({
    rawContentLength: 100_372,
    tags: [],
    sha256: 'a'.repeat(64),
    payloadSha384: 'c'.repeat(96),
    nativeAddress: 'owner-1',
    ...facts,
  });
  const rules = rulesOf([
    { name: 'spam', match: { size: 100_372, untagged: true }, reason: 'known spam shape' },
    { name: 'phish', action: 'refuse', match: { tags: [{ name: 'App-Name', value: 'Phish.*' }, { name: 'Type' }] }, reason: 'phishing' },
    { name: 'known', match: { sha256: ['b'.repeat(64)], minSize: 10, maxSize: 20 }, reason: 'a known item' },
    { name: 'owner', match: { owners: ['owner-2'] }, reason: 'an owner under review' },
    // as sha384sum prints it, or in capitals: one form once read
    { name: 'payload', match: { payloadSha384: ['D'.repeat(96)] }, reason: 'a known payload' },
  ]);

  it('matches when every condition of a rule holds, the first rule deciding', () => {
    expect(ruleFor(rules, item({}))?.name).to.equal('spam');
    expect(ruleFor(rules, item({ rawContentLength: 100_373 }))).to.equal(undefined);
    expect(ruleFor(rules, item({ tags: [{ name: 'a', value: 'b' }] }))).to.equal(undefined);
    const phish = [
      { name: 'App-Name', value: 'PhishKit' },
      { name: 'Type', value: 'x' },
    ];
    expect(ruleFor(rules, item({ tags: phish }))).to.deep.include({ name: 'phish', action: 'refuse' });
    // patterns match whole strings, and every pattern must match some tag
    expect(ruleFor(rules, item({ tags: [{ name: 'App-Name', value: 'A PhishKit' }, phish[1]!] }))).to.equal(undefined);
    expect(ruleFor(rules, item({ tags: [phish[0]!] }))).to.equal(undefined);
    expect(ruleFor(rules, item({ sha256: 'b'.repeat(64), rawContentLength: 15 }))?.name).to.equal('known');
    expect(ruleFor(rules, item({ sha256: 'b'.repeat(64), rawContentLength: 21 }))).to.equal(undefined);
    expect(ruleFor(rules, item({ nativeAddress: 'owner-2', rawContentLength: 5 }))?.name).to.equal('owner');
    expect(ruleFor(rules, item({ payloadSha384: 'd'.repeat(96), rawContentLength: 5 }))?.name).to.equal('payload');
    expect(ruleFor(rules, item({ payloadSha384: 'e'.repeat(96), rawContentLength: 5 }))).to.equal(undefined);
  });

  it('refuses at start-up a rule with a bad pattern, no condition, or a name used twice, naming the variable', () => {
    for (const bad of [
      [{ name: 'x', match: { tags: [{ name: '(' }] }, reason: 'r' }],
      [{ name: 'x', match: {}, reason: 'r' }],
      [
        { name: 'x', match: { size: 1 }, reason: 'r' },
        { name: 'x', match: { size: 2 }, reason: 'r' },
      ],
      [{ name: 'x', match: { size: 1 }, reason: 'r', extra: true }],
      [{ name: 'x', match: { payloadSha384: ['d'.repeat(64)] }, reason: 'r' }],
    ]) {
      expect(() => rulesOf(bad), JSON.stringify(bad)).to.throw(/QUARANTINE_RULES: a JSON array of rules/);
    }
  });
});
