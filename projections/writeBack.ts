import {
  CheckpointConflict,
  type CheckpointWrite,
  type DocumentIndex,
  type DocumentWrite,
  type ReadStore,
  type StoredDocument,
} from '../src/ports/readStore.js';
import type { WrittenIds } from './writtenIds.js';
import { storedIdsUnder } from './follow.js';

/**
 * A rebuild's documents held in memory across batches and written to the read store together: a
 * document many events change (an account, the upload statistics) is read once and written once per
 * flush instead of once per batch. Nobody reads a read model being rebuilt (it is beside the live
 * one until promoted), and a rebuild that stops half-way starts afresh, so holding its writes
 * changes what it builds in no way. Bounded: `flush` once `size` passes the caller's limit.
 *
 * Checkpoints keep their compare-and-set: a commit is checked against the checkpoints as this buffer
 * holds them, and the flush against the ones stored at the previous flush, so a second rebuild of
 * the same projection moving them meanwhile still fails with CheckpointConflict.
 *
 * `written`: collections that were empty when their WrittenIds began and that only flushes given
 * the same WrittenIds write to (a rebuild's, emptied at its start). An id such a collection has never
 * been given is not read from the store: it is certainly not there.
 */
export class WriteBack {
  /** by collection, then id; `undefined` doc: deleted */
  readonly #documents = new Map<string, Map<string, { doc: unknown; position: bigint; index?: DocumentIndex }>>();
  /** the checkpoints as the buffered commits left them */
  readonly #checkpoints = new Map<string, bigint | undefined>();
  /** the checkpoints as stored at the last flush (what the flush expects) */
  readonly #stored = new Map<string, bigint | null | undefined>();
  #size = 0;
  /** by collection, then kind of key (`idsUnder`): the held documents' ids by key */
  readonly #keyIndexes = new Map<string, Map<string, Map<string, Set<string>>>>();

  constructor(
    private readonly store: Pick<ReadStore, 'getMany' | 'commit'> & Partial<Pick<ReadStore, 'findByKey'>>,
    private readonly written: ReadonlyMap<string, WrittenIds> = new Map(),
  ) {}

  /** documents held, deleted ones included */
  get size(): number {
    return this.#size;
  }

  async getMany<T>(collection: string, ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
    const held = this.#documents.get(collection);
    const written = this.written.get(collection);
    const found = new Map<string, StoredDocument<T>>();
    const missing: string[] = [];
    for (const id of ids) {
      const entry = held?.get(id);
      if (entry === undefined) {
        if (written === undefined || written.mayHold(id)) missing.push(id);
      } else if (entry.doc !== undefined) found.set(id, { doc: entry.doc as T, position: entry.position });
    }
    if (missing.length > 0) for (const [id, stored] of await this.store.getMany<T>(collection, missing)) found.set(id, stored);
    return found;
  }

  /**
   * The ids under index key `key` (a projection's followers, follow.ts) as the held documents make them:
   * the stored ones, less those held without the key, and the held ones with it. The held ones are
   * looked up in an index of the keys of that kind (the text up to the first ':'), built over the held
   * documents at the first question about the kind and kept up to date from then on: a rebuild asks
   * once per leader, while holding up to tens of thousands of documents.
   */
  async idsUnder(collection: string, key: string): Promise<string[]> {
    const held = this.#documents.get(collection);
    const index = this.#keyIndexOf(collection, kindOf(key));
    const ids = new Set<string>();
    for (const id of await storedIdsUnder(this.store, collection, key)) {
      const entry = held?.get(id);
      if (entry === undefined || (entry.doc !== undefined && entry.index?.keys.includes(key))) ids.add(id);
    }
    for (const id of index.get(key) ?? []) ids.add(id);
    return [...ids];
  }

  /** the held ids by key, for the keys of `kind` in `collection` (built at the first question) */
  #keyIndexOf(collection: string, kind: string): Map<string, Set<string>> {
    let kinds = this.#keyIndexes.get(collection);
    if (kinds === undefined) this.#keyIndexes.set(collection, (kinds = new Map()));
    let index = kinds.get(kind);
    if (index === undefined) {
      kinds.set(kind, (index = new Map()));
      for (const [id, entry] of this.#documents.get(collection) ?? []) indexKeys(index, kind, id, entry, +1);
    }
    return index;
  }

  async commit(writes: readonly DocumentWrite[], checkpoints: readonly CheckpointWrite[]): Promise<void> {
    for (const c of checkpoints) {
      if (c.expected === undefined) continue;
      // a checkpoint this buffer never saw is checked by the flush, against the store
      if (!this.#checkpoints.has(c.name)) continue;
      const actual = this.#checkpoints.get(c.name);
      if (c.expected === null ? actual !== undefined : actual !== c.expected) throw new CheckpointConflict(c.name, c.expected, actual);
    }
    for (const w of writes) {
      let held = this.#documents.get(w.collection);
      if (held === undefined) this.#documents.set(w.collection, (held = new Map()));
      if (!held.has(w.id)) this.#size++;
      const indexes = this.#keyIndexes.get(w.collection);
      for (const [kind, index] of indexes ?? []) {
        indexKeys(index, kind, w.id, held.get(w.id), -1);
        indexKeys(index, kind, w.id, w, +1);
      }
      held.set(w.id, { doc: w.doc, position: w.position, ...(w.index ? { index: w.index } : {}) });
    }
    for (const c of checkpoints) {
      if (!this.#stored.has(c.name)) this.#stored.set(c.name, c.expected);
      this.#checkpoints.set(c.name, c.position);
    }
  }

  /**
   * Writes what is held, with the checkpoints, in one commit of the store; then holds nothing. Each
   * collection's documents in id order: the store's index is by id, so neighbours share its pages
   * (in id order a rebuild spends markedly less of its time in SQLite's inserts).
   */
  async flush(): Promise<void> {
    if (this.#size === 0 && this.#checkpoints.size === 0) return;
    const writes: DocumentWrite[] = [];
    for (const [collection, held] of this.#documents) {
      const written = this.written.get(collection);
      for (const id of [...held.keys()].sort()) {
        const { doc, position, index } = held.get(id)!;
        writes.push({ collection, id, doc, position, ...(index ? { index } : {}) });
        // before the commit: should it fail, a filter that holds too much only costs a read
        if (doc !== undefined) written?.add(id);
      }
    }
    const checkpoints: CheckpointWrite[] = [...this.#checkpoints].map(([name, position]) => {
      const expected = this.#stored.get(name);
      return { name, position: position!, ...(expected !== undefined ? { expected } : {}) };
    });
    await this.store.commit(writes, checkpoints);
    this.#documents.clear();
    for (const kinds of this.#keyIndexes.values()) for (const index of kinds.values()) index.clear();
    this.#size = 0;
    for (const [name, position] of this.#checkpoints) this.#stored.set(name, position!);
  }
}

/** a key's kind: its text up to the first ':' (`root:<id>` is of kind `root:`) */
const kindOf = (key: string): string => key.slice(0, key.indexOf(':') + 1);

/** adds (+1) or removes (-1) a held document's keys of `kind` in `index`; a deleted document has none */
function indexKeys(index: Map<string, Set<string>>, kind: string, id: string, entry: { doc: unknown; index?: DocumentIndex } | undefined, sign: 1 | -1): void {
  if (entry?.doc === undefined || !entry.index) return;
  for (const key of entry.index.keys) {
    if (kindOf(key) !== kind) continue;
    let ids = index.get(key);
    if (sign === 1) {
      if (ids === undefined) index.set(key, (ids = new Set()));
      ids.add(id);
    } else {
      ids?.delete(id);
      if (ids?.size === 0) index.delete(key);
    }
  }
}
