import { readFile } from 'node:fs/promises';

/** a size field of a process's /proc status (Linux), in MiB */
async function statusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
  return kib / 1024;
}

/** the peak resident set size of a process so far, in MiB (Linux: VmHWM) */
export const peakRssMiB = (pid: number): Promise<number> => statusMiB(pid, 'VmHWM');

/** the resident set size of a process now, in MiB (Linux: VmRSS) */
export const rssMiB = (pid: number): Promise<number> => statusMiB(pid, 'VmRSS');
