import { expect } from 'chai';
import { createConnectionTable, type ConnectionCaps } from '../../src/http/connectionTable.js';

/** connections named `<network>/<client>/<n>`: the table only ever sees the names */
const conn = (network: string, client: string, n: number) => `${network}/${client}/${n}`;

describe('connection table: who gets a place', () => {
  const table = (caps: Partial<ConnectionCaps>) => createConnectionTable<string>({ max: 0, perClient: 0, perNetwork: 0, ...caps });
  const open = (t: ReturnType<typeof table>, network: string, client: string, count: number) => {
    for (let n = 0; n < count; n++) expect(t.admit(conn(network, client, n), client, network), conn(network, client, n)).to.include({ admitted: true });
  };

  it('refuses a connection past the cap of its client, then of its network; others still get places', () => {
    const t = table({ perClient: 2, perNetwork: 3 });
    open(t, 'A', 'a1', 2);
    expect(t.admit('A/a1/2', 'a1', 'A')).to.deep.equal({ admitted: false, refusedBy: 'client' });
    open(t, 'A', 'a2', 1);
    expect(t.admit('A/a3/0', 'a3', 'A')).to.deep.equal({ admitted: false, refusedBy: 'network' });
    open(t, 'B', 'b1', 2);
    expect(t.size).to.equal(5);
    t.remove('A/a1/0');
    expect(t.admit('A/a3/0', 'a3', 'A')).to.deep.equal({ admitted: true, evict: undefined });
  });

  it('at the cap of all, makes room with the idle connection of the largest network that was idle the longest', () => {
    const t = table({ max: 6 });
    open(t, 'A', 'a1', 4);
    open(t, 'B', 'b1', 2);
    t.busy('A/a1/0');
    expect(t.admit('C/c1/0', 'c1', 'C')).to.deep.equal({ admitted: true, evict: 'A/a1/1' });
    // A/a1/0 went back to idle last: it is the last of A's to go
    t.idle('A/a1/0');
    expect(t.admit('C/c1/1', 'c1', 'C')).to.deep.equal({ admitted: true, evict: 'A/a1/2' });
    // A, B and C now hold 2 each: C, as large as any, takes the place of its own
    expect(t.admit('C/c1/2', 'c1', 'C')).to.deep.equal({ admitted: true, evict: 'C/c1/0' });
    expect(t.size).to.equal(6);
  });

  it('never takes a connection in the middle of a request: refuses when every larger network is busy', () => {
    const t = table({ max: 3 });
    open(t, 'A', 'a1', 3);
    for (let n = 0; n < 3; n++) t.busy(conn('A', 'a1', n));
    expect(t.admit('C/c1/0', 'c1', 'C')).to.deep.equal({ admitted: false, refusedBy: 'all' });
    t.idle('A/a1/1');
    expect(t.admit('C/c1/0', 'c1', 'C')).to.deep.equal({ admitted: true, evict: 'A/a1/1' });
  });

  it('lets the network holding the most take the place of its own connections only', () => {
    const t = table({ max: 5 });
    open(t, 'A', 'a1', 3);
    open(t, 'B', 'b1', 2);
    expect(t.admit('A/a2/0', 'a2', 'A')).to.deep.equal({ admitted: true, evict: 'A/a1/0' });
    for (let n = 1; n < 3; n++) t.busy(conn('A', 'a1', n));
    t.busy('A/a2/0');
    // A holds 3, all busy; B's 2 idle are not A's to take
    expect(t.admit('A/a2/1', 'a2', 'A')).to.deep.equal({ admitted: false, refusedBy: 'all' });
    // a network as large as the largest one with an idle connection takes only its own
    const u = table({ max: 4 });
    open(u, 'A', 'a1', 2);
    open(u, 'B', 'b1', 2);
    u.busy('B/b1/0');
    u.busy('B/b1/1');
    expect(u.admit('B/b2/0', 'b2', 'B')).to.deep.equal({ admitted: false, refusedBy: 'all' });
    expect(u.admit('C/c1/0', 'c1', 'C')).to.deep.equal({ admitted: true, evict: 'A/a1/0' });
  });

  it('forgets a connection once, whether it closed or was evicted, and keeps its counts right', () => {
    const t = table({ max: 2, perClient: 2, perNetwork: 2 });
    open(t, 'A', 'a1', 2);
    expect(t.admit('B/b1/0', 'b1', 'B')).to.deep.equal({ admitted: true, evict: 'A/a1/0' });
    t.remove('A/a1/0');
    t.remove('A/a1/0');
    expect(t.size).to.equal(2);
    expect(t.admit('A/a1/2', 'a1', 'A')).to.deep.equal({ admitted: true, evict: 'A/a1/1' });
    t.remove('A/a1/2');
    t.remove('B/b1/0');
    expect(t.size).to.equal(0);
    open(t, 'A', 'a1', 2);
    expect(t.admit('A/a1/9', 'a1', 'A')).to.deep.equal({ admitted: false, refusedBy: 'client' });
  });
});
