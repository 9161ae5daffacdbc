/**
 * A Map bounded to `maxEntries`, dropping the least recently used entry first (a Map iterates in
 * insertion order, so re-inserting on each use keeps the oldest first). For caches whose keys come
 * from clients (a price per chunk count, a public key per owner): no stream of distinct keys grows
 * one without bound.
 */
export function createLru<K, V>(maxEntries: number) {
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError(`not a cache size: ${maxEntries}`);
  const entries = new Map<K, V>();
  return {
    get size(): number {
      return entries.size;
    },
    get(key: K): V | undefined {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    delete(key: K): void {
      entries.delete(key);
    },
    set(key: K, value: V): void {
      entries.delete(key);
      entries.set(key, value);
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
  };
}
