import { AsyncLocalStorage } from 'node:async_hooks';
import { MemoryStorageAdapter, ObjectId, plugins, type Document, type IStoredDocument } from '@push.rocks/smartmongo/dist_ts/congodb/index.js';

/**
 * The stand-in's storage (see test/support/mongoStandIn.ts): documents keyed by `_id`s of any type,
 * and writes done as MongoDB does them, in units of work that are isolated until they commit.
 *
 * A unit of work (`Work`) is a multi-document transaction, or one write command outside a transaction
 * (every write in MongoDB runs in a storage transaction: jstests/core/txns/write_conflicts_with_non_txns.js).
 * Its writes go to a private overlay (`writes`: after-images, null for a deletion) that no other reader
 * sees; `commit` applies them to the shared documents in one step, `abort` drops them, so nothing is
 * ever to be rolled back in the shared documents. Its reads see a snapshot taken when it began: the
 * shared documents, except those committed by others since, whose versions as they were are kept for it
 * (`seen`, copied on the other's commit), then its own overlay. Reads outside any unit see committed
 * documents only. (One write command outside a transaction is one unit here, its documents shown together;
 * the server commits each document's write on its own, so a reader may see part of such a command there.)
 *
 * Conflicts, first writer wins (WiredTiger's rule, as MongoDB reports it: a write to a record that has
 * an update the writer's snapshot cannot see is a WriteConflict, `src/mongo/db/concurrency/exception_util.h`,
 * `throwWriteConflictException`): a unit writing a document that another open unit has written, or that
 * another committed after this unit's snapshot, fails with `WriteConflict`. What a conflict does to the
 * unit (a transaction aborts, a single write waits and runs again) is decided by the commands
 * (mongoStandInTransactions.ts), which see it in `conflict` even where a handler swallowed the error.
 */
export class TransactionalStorage extends MemoryStorageAdapter {
  readonly #open = new Set<Work>();
  readonly #current = new AsyncLocalStorage<Work>();

  /** `work` is the unit of every storage call `task` makes (its awaits included) */
  within<T>(work: Work, task: () => Promise<T>): Promise<T> {
    return this.#current.run(work, task);
  }

  begin(): Work {
    const work = new Work();
    this.#open.add(work);
    return work;
  }

  /** Applies `work`'s writes at once; units open meanwhile keep, for their snapshots, what they replace. */
  commit(work: Work): void {
    if (!this.#open.delete(work)) return;
    for (const [namespace, writes] of work.writes) {
      const documents = this.#documents(namespace);
      for (const [key, version] of writes) {
        this.#keepFor(work, namespace, key);
        if (version === null) documents.delete(key);
        else documents.set(key, version);
      }
    }
    work.finish('committed');
  }

  abort(work: Work): void {
    if (this.#open.delete(work)) work.finish('aborted');
  }

  override async insertOne(dbName: string, collName: string, doc: Document): Promise<IStoredDocument> {
    const stored = { ...doc, _id: doc._id ?? new ObjectId() } as IStoredDocument;
    const namespace = `${dbName}.${collName}`;
    const key = keyOf(stored._id);
    this.#documents(namespace); // the collection exists from its first write on
    const work = this.#claim(namespace, key);
    if (this.#read(namespace, key) !== null) {
      throw new DuplicateKey(`E11000 duplicate key error collection: ${namespace} dup key: { _id: ${key} }`);
    }
    this.#write(work, namespace, key, stored);
    return stored;
  }

  override async findAll(dbName: string, collName: string): Promise<IStoredDocument[]> {
    const namespace = `${dbName}.${collName}`;
    const documents = this.#documents(namespace);
    const work = this.#current.getStore();
    const seen = work?.seen.get(namespace);
    const written = work?.writes.get(namespace);
    if (!seen && !written) return [...documents.values()];
    const view = new Map(documents);
    for (const layer of [seen, written]) {
      for (const [key, version] of layer ?? []) {
        if (version === null) view.delete(key);
        else view.set(key, version);
      }
    }
    return [...view.values()];
  }

  override async findById(dbName: string, collName: string, id: ObjectId): Promise<IStoredDocument | null> {
    return this.#read(`${dbName}.${collName}`, keyOf(id));
  }

  override async count(dbName: string, collName: string): Promise<number> {
    return (await this.findAll(dbName, collName)).length;
  }

  override async updateById(dbName: string, collName: string, id: ObjectId, doc: IStoredDocument): Promise<boolean> {
    const namespace = `${dbName}.${collName}`;
    const key = keyOf(id);
    const current = this.#read(namespace, key);
    if (current === null) return false;
    // an update that changes nothing writes nothing, so it conflicts with nothing (as in MongoDB)
    if (sameDocument(current, doc)) return true;
    this.#write(this.#claim(namespace, key), namespace, key, doc);
    return true;
  }

  override async deleteById(dbName: string, collName: string, id: ObjectId): Promise<boolean> {
    const namespace = `${dbName}.${collName}`;
    const key = keyOf(id);
    if (this.#read(namespace, key) === null) return false;
    this.#write(this.#claim(namespace, key), namespace, key, null);
    return true;
  }

  /** A drop waits for the transactions that wrote to the collection (in MongoDB: for their locks). */
  override async dropCollection(dbName: string, collName: string): Promise<boolean> {
    await this.#quiet((namespace) => namespace === `${dbName}.${collName}`);
    return super.dropCollection(dbName, collName);
  }

  override async dropDatabase(dbName: string): Promise<boolean> {
    await this.#quiet((namespace) => namespace.startsWith(`${dbName}.`));
    return super.dropDatabase(dbName);
  }

  async #quiet(touches: (namespace: string) => boolean): Promise<void> {
    for (;;) {
      const writer = [...this.#open].find((work) => [...work.writes.keys()].some(touches));
      if (!writer) return;
      await writer.ended;
    }
  }

  #documents(namespace: string): Map<string, IStoredDocument> {
    const dot = namespace.indexOf('.');
    return (this as unknown as StorageInternals).ensureCollection(namespace.slice(0, dot), namespace.slice(dot + 1));
  }

  /** the version of a document the current unit reads (committed documents outside any unit) */
  #read(namespace: string, key: string): IStoredDocument | null {
    const work = this.#current.getStore();
    for (const layer of [work?.writes, work?.seen]) {
      const versions = layer?.get(namespace);
      if (versions?.has(key)) return versions.get(key)!;
    }
    return this.#documents(namespace).get(key) ?? null;
  }

  /**
   * The current unit, allowed to write the document, or a WriteConflict (kept on the unit). A write
   * outside any unit (none of the commands the adapters send) is applied at once, as a unit of its own.
   */
  #claim(namespace: string, key: string): Work | undefined {
    const work = this.#current.getStore();
    if (!work) return undefined;
    if (work.state !== 'open') throw (work.conflict ??= new WriteConflict(undefined));
    const holder = [...this.#open].find((other) => other !== work && other.writes.get(namespace)?.has(key));
    if (holder || work.seen.get(namespace)?.has(key)) throw (work.conflict ??= new WriteConflict(holder));
    return work;
  }

  #write(work: Work | undefined, namespace: string, key: string, version: IStoredDocument | null): void {
    if (work) return void versionsOf(work.writes, namespace).set(key, version);
    this.#keepFor(undefined, namespace, key);
    const documents = this.#documents(namespace);
    if (version === null) documents.delete(key);
    else documents.set(key, version);
  }

  /** before a committed write: every other open unit keeps the version its snapshot has */
  #keepFor(writer: Work | undefined, namespace: string, key: string): void {
    const before = this.#documents(namespace).get(key) ?? null;
    for (const other of this.#open) {
      if (other === writer) continue;
      const seen = versionsOf(other.seen, namespace);
      if (!seen.has(key)) seen.set(key, before);
    }
  }
}

/** per namespace ("db.collection"), per document key: a version (null: no document) */
type Versions = Map<string, Map<string, IStoredDocument | null>>;

const versionsOf = (versions: Versions, namespace: string): Map<string, IStoredDocument | null> => {
  let inNamespace = versions.get(namespace);
  if (!inNamespace) versions.set(namespace, (inNamespace = new Map()));
  return inNamespace;
};

/** A multi-document transaction, or one write command outside a transaction (see above). */
export class Work {
  /** what it wrote: after-images, null for a deletion; the before-images are the shared documents */
  readonly writes: Versions = new Map();
  /** for its snapshot: the versions, as they were when it began, of documents others committed since */
  readonly seen: Versions = new Map();
  state: 'open' | 'committed' | 'aborted' = 'open';
  /** the first write conflict it met, whether or not a handler reported it */
  conflict: WriteConflict | undefined;
  readonly ended: Promise<void>;
  #end!: () => void;

  constructor() {
    this.ended = new Promise((resolve) => (this.#end = resolve));
  }

  finish(state: 'committed' | 'aborted'): void {
    this.state = state;
    this.writes.clear();
    this.seen.clear();
    this.#end();
  }
}

/** MongoDB's WriteConflict (code 112), with the open unit holding the document, if one does */
export class WriteConflict extends Error {
  readonly code = 112;
  readonly codeName = 'WriteConflict';
  constructor(readonly holder: Work | undefined) {
    // the server's message (exception_util.h, throwWriteConflictException)
    super('Caused by :: Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.');
  }
}

/** MongoDB's answer to an insert that meets an existing `_id` */
export class DuplicateKey extends Error {
  readonly code = 11000;
  readonly codeName = 'DuplicateKey';
}

/**
 * A document's key in the memory storage: the ObjectId's hex as the stand-in itself keys them (its
 * other parts look documents up that way), anything else by type and value, so that the string
 * '65a…' and the ObjectId 65a… stay two documents, as in MongoDB.
 */
export const keyOf = (id: unknown): string => (id instanceof ObjectId ? id.toHexString() : `${typeof id}:${typeof id === 'string' ? id : JSON.stringify(id)}`);

const sameDocument = (a: Document, b: Document): boolean => Buffer.compare(plugins.bson.serialize(a), plugins.bson.serialize(b)) === 0;

interface StorageInternals {
  ensureCollection(dbName: string, collName: string): Map<string, IStoredDocument>;
}
