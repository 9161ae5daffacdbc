import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { SMALL_BLOB_FILE } from '../../src/adapters/fs/tieredBlobStore.js';
import type { RawResponse } from './hostileHttp.js';
import { smallBlobKeys } from './storedBlob.js';

/**
 * What the bad-input corpus checks around its requests: each answer is the contract's exact error
 * (CONTRACT.md section 1), and after the run nothing partial is left on disk.
 */

export const ERROR_CONTENT_TYPE = 'text/plain; charset=utf-8';

export interface Answer {
  status: number;
  reason: string;
  contentType: string | undefined;
  body: string;
}

export async function answerOf(res: Response | RawResponse): Promise<Answer> {
  if (res instanceof Response) {
    return { status: res.status, reason: res.statusText, contentType: res.headers.get('content-type') ?? undefined, body: await res.text() };
  }
  return { status: res.status, reason: res.reason, contentType: res.headers['content-type'], body: res.body.toString('utf8') };
}

/** `undefined` when the answer is exactly the contract's error, else what differs (for one list of all misses) */
export function mismatchOf(answer: Answer, status: number, message: string): string | undefined {
  const expected: Answer = { status, reason: message, contentType: ERROR_CONTENT_TYPE, body: message };
  const same = answer.status === status && answer.reason === message && answer.contentType === ERROR_CONTENT_TYPE && answer.body === message;
  return same ? undefined : `got ${JSON.stringify(answer).slice(0, 300)}, expected ${JSON.stringify(expected)}`;
}

export async function expectContractError(res: Response | RawResponse, status: number, message: string): Promise<void> {
  expect(mismatchOf(await answerOf(res), status, message)).to.equal(undefined);
  if (status === 429 || status === 503) expectRetryAfter(res instanceof Response ? res.headers.get('retry-after') : res.headers['retry-after']);
}

/** Every 429 and 503 says when to try again (CONTRACT.md section 10): a whole number of seconds, at least 1. */
export function expectRetryAfter(value: string | string[] | null | undefined): void {
  expect(value, 'Retry-After')
    .to.be.a('string')
    .and.match(/^[1-9]\d*$/);
}

/** Runs `tasks` at most `concurrency` at a time; returns every non-undefined result, in task order. */
export async function collect<T>(tasks: readonly (() => Promise<T | undefined>)[], concurrency = 4): Promise<T[]> {
  const results: (T | undefined)[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results.filter((r): r is T => r !== undefined);
}

/** every file under `dir`, as paths relative to it with `/` separators, sorted */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

/**
 * The blobs of a data directory's blob store, as keys, sorted: each small blob (a row of
 * `.small-blobs.db`), each file, and each composed blob (a multi-part item: a directory of parts and
 * a `.manifest`, src/adapters/fs/composed.ts) once, by its directory; a part of a directory without a
 * manifest stays a file of its own. `prefix`: only those under it.
 */
export async function storedKeys(dataDir: string, prefix?: string): Promise<string[]> {
  const root = join(dataDir, 'blobs');
  const files = (await filesUnder(prefix === undefined ? root : join(root, prefix)))
    .map((path) => (prefix === undefined ? path : `${prefix}/${path}`))
    .filter((path) => !path.startsWith(SMALL_BLOB_FILE));
  const composed = new Set(files.filter((path) => path.endsWith('/.manifest')).map((path) => path.slice(0, -'/.manifest'.length)));
  const blobOf = (path: string) => {
    const dir = path.slice(0, path.lastIndexOf('/'));
    return path.slice(dir.length + 1).startsWith('.') && composed.has(dir) ? dir : path;
  };
  const rows = smallBlobKeys(dataDir).filter((key) => prefix === undefined || key.startsWith(`${prefix}/`));
  return [...new Set([...files.map(blobOf), ...rows])].sort();
}

const TEMPORARY = /(^|\/)\.tmp\/|\.(tmp|part|partial|deleted)$/;

/**
 * A service's data directory after hostile requests: its blob store holds exactly the blobs of the
 * accepted items (no temp file, no upload bytes, no blob for a refused item), and nothing else in
 * the directory looks like a leftover of an interrupted write.
 */
export async function expectOnlyAcceptedBlobs(dataDir: string, acceptedIds: Iterable<string>): Promise<void> {
  const expected = [...new Set(acceptedIds)].map((id) => `items/${id}`).sort();
  expect(await storedKeys(dataDir)).to.deep.equal(expected);
  expect((await filesUnder(dataDir)).filter((path) => TEMPORARY.test(path))).to.deep.equal([]);
}

export const MiB = 1024 * 1024;
