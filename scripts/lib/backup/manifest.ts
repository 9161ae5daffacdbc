import { opendir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { z } from 'zod';
import { digestOf, fsyncDir, fsyncFile } from './durableFiles.js';

export const MANIFEST_FILE = 'manifest.json';
export const BACKUP_FORMAT = 'upload-service-backup/1';

const ManifestFile = z.object({
  /** relative to the backup (and to DATA_DIR once restored), `/`-separated */
  path: z.string().min(1),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const Manifest = z.object({
  format: z.literal(BACKUP_FORMAT),
  serviceVersion: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  /** the position of the last event in the backed-up event store (decimal): what the restored service starts from */
  eventStoreHead: z.string().regex(/^\d+$/),
  /** where the wallet came from: `DATA_DIR/wallet.json`, `WALLET_FILE`, or none (no wallet yet) */
  wallet: z.enum(['DATA_DIR', 'WALLET_FILE', 'none']),
  files: z.array(ManifestFile),
});
export type Manifest = z.infer<typeof Manifest>;
export type ManifestFile = z.infer<typeof ManifestFile>;

/** Every regular file under `dir` (but the manifest), with its size and sha256, in path order. */
export async function filesOf(dir: string): Promise<ManifestFile[]> {
  const files: ManifestFile[] = [];
  for await (const path of walk(dir)) {
    const name = relative(dir, path).split(sep).join('/');
    if (name === MANIFEST_FILE) continue;
    files.push({ path: name, ...(await digestOf(path)) });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of await opendir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

/** The manifest, written last and atomically (a temp file fsynced, renamed, the directory fsynced): a backup with one is whole. */
export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const temp = join(dir, `.${MANIFEST_FILE}.tmp`);
  await writeFile(temp, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  await fsyncFile(temp);
  await rename(temp, join(dir, MANIFEST_FILE));
  await fsyncDir(dir);
}

/** The manifest of the backup in `dir`, or an error saying why it is not one. */
export async function readManifest(dir: string): Promise<Manifest> {
  let text;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new Error(`no ${MANIFEST_FILE} in ${dir}: not a backup, or one that did not finish`);
  }
  const parsed = Manifest.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${join(dir, MANIFEST_FILE)} is not a manifest of ${BACKUP_FORMAT}: ${parsed.error.issues[0]?.message}`);
  for (const file of parsed.data.files) {
    if (file.path.split('/').some((part) => part === '..' || part === '') || file.path.startsWith('/'))
      throw new Error(`${join(dir, MANIFEST_FILE)} names a file outside the backup: ${file.path}`);
  }
  return parsed.data;
}
