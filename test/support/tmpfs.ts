import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real small file system (tmpfs) for tests of a disk that fills up or turns read-only. Mounting
 * needs root (CAP_SYS_ADMIN): `canMountTmpfs` is decided once, when the test file loads, so a test
 * that needs it can say it was not run instead of passing silently.
 */
const run = (args: string[]) => spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });

function probe(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'tmpfs-probe-'));
  try {
    if (run(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]).status !== 0) return false;
    run(['umount', dir]);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const canMountTmpfs = probe();

export const tmpfsNotRunMessage = 'was not run: this process cannot mount a tmpfs (needs root, CAP_SYS_ADMIN)';

export interface Tmpfs {
  dir: string;
  /** the same mount with other options (`size=…`, `ro`, `rw`), keeping its files */
  remount(options: string): void;
  /** unmounts and removes the mount point */
  remove(): void;
}

function mustRun(args: string[]): void {
  const result = run(args);
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr || result.error}`);
}

export function mountTmpfs(sizeBytes: number): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), 'tmpfs-'));
  mustRun(['mount', '-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir]);
  return {
    dir,
    remount: (options) => mustRun(['mount', '-o', `remount,${options}`, dir]),
    remove() {
      mustRun(['umount', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
