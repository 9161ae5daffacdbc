import { readFile } from 'node:fs/promises';

/** the peak resident set size of a process so far, in MiB (Linux: VmHWM) */
export async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return kib / 1024;
}
