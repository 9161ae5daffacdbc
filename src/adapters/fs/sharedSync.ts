/**
 * Group commit for a sync that makes durable whatever was done before it started (an fsync): a
 * caller that has made a change needs a sync that started after its change, and one sync serves
 * every caller whose change came before its start. A caller arriving while a sync runs waits for
 * the next one, which starts once the running one ends and serves all who arrived meanwhile; a
 * caller arriving when none runs starts one at once. So under load N changes cost about two syncs
 * in flight rather than N, and none of them waits on a sync that could have missed its change.
 */
export function sharedSync<K>(sync: (key: K) => Promise<void>): (key: K) => Promise<void> {
  const running = new Map<K, Running>();

  function start(key: K): Promise<void> {
    const current: Running = { done: sync(key) };
    running.set(key, current);
    void current.done.then(noop, noop).then(() => {
      // a sync started since (the next one, or one started by a caller that came in between) stays
      if (running.get(key) === current) running.delete(key);
    });
    return current.done;
  }

  return (key) => {
    const current = running.get(key);
    if (current === undefined) return start(key);
    current.next ??= current.done.then(noop, noop).then(() => start(key));
    return current.next;
  };
}

interface Running {
  done: Promise<void>;
  /** the sync of the callers that arrived while `done` ran */
  next?: Promise<void>;
}

const noop = () => {};
