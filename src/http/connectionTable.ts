/**
 * The open connections, counted per client (an address, an IPv6 /64), per network (an IPv4 /24, an
 * IPv6 /48) and in all, and which of them are idle (no request in progress: none yet, part of its
 * headers, or between two requests). It decides whether a new connection may open:
 * - past the cap of its client or of its network it is refused: those caps keep one owner from
 *   holding more than its share;
 * - at the cap of all connections, an idle connection of the network holding the most makes room
 *   for it, so the cap cannot be held: a client holding few connections always gets one, taken from
 *   those holding many. A connection from the network holding the most (or as many as any other
 *   with an idle connection) can only take the place of one of its own network's.
 * Within a network, the connection idle the longest goes first: the one that had the most time to
 * send a request. A connection in the middle of a request is never taken.
 * Bookkeeping only (no sockets, no timers): the caller closes what the table says to close.
 */

export interface ConnectionCaps {
  /** 0: no cap, for each */
  max: number;
  perClient: number;
  perNetwork: number;
}

export type Admission<C> = { admitted: true; evict: C | undefined } | { admitted: false; refusedBy: 'client' | 'network' | 'all' };

interface Entry<C> {
  connection: C;
  client: string;
  network: Network<C>;
  /** requests in progress (more than one when pipelined) */
  active: number;
}

interface Network<C> {
  key: string;
  count: number;
  /** idle connections, the one idle the longest first (a Set keeps insertion order) */
  idle: Set<Entry<C>>;
}

export interface ConnectionTable<C> {
  /** records the connection when admitted; the one to evict (if any) is already forgotten */
  admit(connection: C, client: string, network: string): Admission<C>;
  /** a request started on the connection */
  busy(connection: C): void;
  /** a request on the connection is over */
  idle(connection: C): void;
  /** the connection closed (or was evicted); forgetting one not known is harmless */
  remove(connection: C): void;
  readonly size: number;
}

export function createConnectionTable<C>(caps: ConnectionCaps): ConnectionTable<C> {
  const entries = new Map<C, Entry<C>>();
  const clients = new Map<string, number>();
  const networks = new Map<string, Network<C>>();
  /** networks by their count of connections, so the largest is found without a scan of all */
  const byCount = new Map<number, Set<Network<C>>>();
  let largest = 0;

  function recount(network: Network<C>, by: 1 | -1): void {
    byCount.get(network.count)?.delete(network);
    if (byCount.get(network.count)?.size === 0) byCount.delete(network.count);
    network.count += by;
    if (network.count === 0) {
      networks.delete(network.key);
    } else {
      let same = byCount.get(network.count);
      if (!same) byCount.set(network.count, (same = new Set()));
      same.add(network);
    }
    if (network.count > largest) largest = network.count;
    while (largest > 0 && !byCount.has(largest)) largest--;
  }

  /** the oldest idle connection of the largest network that has one and holds more than `own` */
  function victimFor(own: Network<C> | undefined): Entry<C> | undefined {
    const ownCount = own?.count ?? 0;
    for (let count = largest; count > ownCount; count--) {
      for (const network of byCount.get(count) ?? []) {
        const [oldest] = network.idle;
        if (oldest) return oldest;
      }
    }
    const [oldestOwn] = own?.idle ?? [];
    return oldestOwn;
  }

  function remove(connection: C): void {
    const entry = entries.get(connection);
    if (!entry) return;
    entries.delete(connection);
    entry.network.idle.delete(entry);
    const left = (clients.get(entry.client) ?? 1) - 1;
    if (left === 0) clients.delete(entry.client);
    else clients.set(entry.client, left);
    recount(entry.network, -1);
  }

  return {
    admit(connection, client, networkKey) {
      if (caps.perClient > 0 && (clients.get(client) ?? 0) >= caps.perClient) return { admitted: false, refusedBy: 'client' };
      const existing = networks.get(networkKey);
      if (caps.perNetwork > 0 && (existing?.count ?? 0) >= caps.perNetwork) return { admitted: false, refusedBy: 'network' };
      let evict: C | undefined;
      if (caps.max > 0 && entries.size >= caps.max) {
        const victim = victimFor(existing);
        if (!victim) return { admitted: false, refusedBy: 'all' };
        evict = victim.connection;
        remove(evict);
      }
      let network = networks.get(networkKey);
      if (!network) networks.set(networkKey, (network = { key: networkKey, count: 0, idle: new Set() }));
      const entry: Entry<C> = { connection, client, network, active: 0 };
      entries.set(connection, entry);
      clients.set(client, (clients.get(client) ?? 0) + 1);
      recount(network, 1);
      network.idle.add(entry);
      return { admitted: true, evict };
    },

    busy(connection) {
      const entry = entries.get(connection);
      if (!entry) return;
      entry.active += 1;
      entry.network.idle.delete(entry);
    },

    idle(connection) {
      const entry = entries.get(connection);
      if (!entry || entry.active === 0) return;
      entry.active -= 1;
      if (entry.active === 0) entry.network.idle.add(entry);
    },

    remove,

    get size() {
      return entries.size;
    },
  };
}
