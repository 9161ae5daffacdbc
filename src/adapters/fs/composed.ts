import { randomUUID } from 'node:crypto';
import { link, lstat, mkdir, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobNotFound, type ByteRange, type OpenBlob } from '../../ports/blobStore.js';
import { syncDir } from './durable.js';
import { isAbsent } from './errno.js';

/**
 * A composed blob (`BlobStore.compose`) is the directory `<root>/<key>` holding hard links to the
 * files of its parts (`.0`, `.1`...; `.<tag>-0`... for a version that replaced another in place) and
 * `.manifest`, which says which bytes of each part are the blob's, in order. Key segments never
 * start with a dot, so none of these names is a key; and a hard link keeps a part's bytes when the
 * blob it came from is deleted. The directory is built in the temp directory and renamed into place
 * whole, so a composed blob is there entirely or not at all. A directory without `.manifest` is no
 * blob, only a prefix of other keys.
 */
export const MANIFEST = '.manifest';

/** A run of bytes of one file: `length` from `start`. */
export interface FilePart {
  path: string;
  start: number;
  length: number;
}

interface Manifest {
  size: number;
  parts: { name: string; start: number; length: number }[];
}

/** The parts of the composed blob in `dir`, with its size; undefined when `dir` is no composed blob. */
export async function readComposed(dir: string): Promise<{ size: number; parts: FilePart[] } | undefined> {
  let text;
  try {
    text = await readFile(join(dir, MANIFEST), 'utf8');
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
  const manifest = JSON.parse(text) as Manifest;
  return { size: manifest.size, parts: manifest.parts.map((p) => ({ path: join(dir, p.name), start: p.start, length: p.length })) };
}

/**
 * Builds a composed blob of `parts` in the new directory `dir` (under the temp directory): links, then
 * the manifest, each durable before the directory is renamed into place by the caller.
 */
export async function writeComposed(dir: string, parts: readonly FilePart[]): Promise<number> {
  await mkdir(dir);
  const size = await writeVersion(dir, parts, '', MANIFEST);
  // the links and the manifest are entries of `dir`: durable once it is synced
  await syncDir(dir);
  return size;
}

/**
 * Makes the composed blob in `dir` (in place) one of `parts` instead: its new links beside the old
 * ones, then its manifest renamed over the old one, so the blob is the old or the new one, never
 * none, whatever happens; then the old links go. Each version's links have names of their own, so a
 * version's links are only ever removed by the one that replaced it (a crash before leaves them
 * unused: space, never wrong bytes).
 */
export async function replaceComposed(dir: string, parts: readonly FilePart[]): Promise<number> {
  const old = await readComposed(dir);
  const tag = randomUUID().slice(0, 8);
  const staged = `.${tag}${MANIFEST}`;
  const size = await writeVersion(dir, parts, `${tag}-`, staged);
  await syncDir(dir);
  await rename(join(dir, staged), join(dir, MANIFEST));
  await syncDir(dir);
  for (const part of old?.parts ?? []) await rm(part.path, { force: true });
  return size;
}

/** links each file of `parts` into `dir` once (`.<tag><n>`) and writes their manifest, synced, as `manifestName` */
async function writeVersion(dir: string, parts: readonly FilePart[], tag: string, manifestName: string): Promise<number> {
  const names = new Map<string, string>();
  for (const part of parts) {
    if (names.has(part.path)) continue;
    const name = `.${tag}${names.size}`;
    await link(part.path, join(dir, name));
    names.set(part.path, name);
  }
  const size = parts.reduce((sum, part) => sum + part.length, 0);
  const manifest: Manifest = { size, parts: parts.map((p) => ({ name: names.get(p.path)!, start: p.start, length: p.length })) };
  const handle = await open(join(dir, manifestName), 'wx');
  try {
    await handle.writeFile(JSON.stringify(manifest));
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return size;
}

/** The runs of `parts` that hold bytes `[start, end]` of the blob they make, in order. */
export function partsWithin(parts: readonly FilePart[], start: number, end: number): FilePart[] {
  const within: FilePart[] = [];
  let at = 0;
  for (const part of parts) {
    const from = Math.max(start, at);
    const to = Math.min(end + 1, at + part.length);
    if (from < to) within.push({ path: part.path, start: part.start + (from - at), length: to - from });
    at += part.length;
    if (at > end) break;
  }
  return within;
}

/** Reads handed out, as the file store's own (1 MiB: few syscalls for big blobs). */
const READ_CHUNK = 1024 * 1024;

/** Streams bytes `range` of a composed blob, opening each part as the stream reaches it. */
export function readComposedRange(key: string, parts: readonly FilePart[], range: ByteRange): Readable {
  async function* bytes(): AsyncGenerator<Buffer> {
    for (const part of partsWithin(parts, range.start, range.end)) {
      const handle = await openPart(key, part.path);
      try {
        for (let at = 0; at < part.length;) {
          const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK, part.length - at));
          const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, part.start + at);
          if (bytesRead === 0) throw new Error(`part ${part.path} of ${key} ended at byte ${part.start + at}`);
          at += bytesRead;
          yield bytesRead === buffer.byteLength ? buffer : buffer.subarray(0, bytesRead);
        }
      } finally {
        await handle.close();
      }
    }
  }
  return Readable.from(bytes(), { objectMode: false, highWaterMark: READ_CHUNK });
}

/** A composed blob open for reads at any position; the part being read stays open until another is. */
export function openComposed(key: string, size: number, parts: readonly FilePart[]): OpenBlob {
  const ends: number[] = [];
  parts.reduce((at, part) => (ends.push(at + part.length), at + part.length), 0);
  let current: { index: number; handle: FileHandle } | undefined;
  const handleOf = async (index: number) => {
    if (current?.index === index) return current.handle;
    await current?.handle.close();
    current = undefined;
    current = { index, handle: await openPart(key, parts[index]!.path) };
    return current.handle;
  };
  return {
    size,
    read: async (into, position) => {
      if (position >= size || into.byteLength === 0) return 0;
      const index = ends.findIndex((end) => end > position);
      const part = parts[index]!;
      const inPart = position - (ends[index]! - part.length);
      const length = Math.min(into.byteLength, part.length - inPart);
      const handle = await handleOf(index);
      return (await handle.read(into, 0, length, part.start + inPart)).bytesRead;
    },
    close: async () => {
      await current?.handle.close();
      current = undefined;
    },
  };
}

async function openPart(key: string, path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (error) {
    // the composed blob was deleted or replaced since it was opened
    if (isAbsent(error)) throw new BlobNotFound(key);
    throw error;
  }
}

/** whether `path` is a composed blob's directory */
export async function isComposedDir(path: string): Promise<boolean> {
  try {
    return (await lstat(join(path, MANIFEST))).isFile();
  } catch (error) {
    if (isAbsent(error)) return false;
    throw error;
  }
}

/** removes a directory built by `writeComposed` that was never put in place */
export const dropComposed = (dir: string) => rm(dir, { recursive: true, force: true });
