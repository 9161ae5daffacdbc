import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/**
 * CPU time (user + system, all threads) another process has used so far, in ms, from Linux's
 * /proc/<pid>/stat (with `mainThread`, its main thread's only: the event loop); undefined elsewhere. Unlike a rate, CPU per unit of work hardly moves when
 * neighbours compete for the cores, so it compares runs on a busy machine.
 */
let ticksPerSecond: number | undefined;

export async function processCpuMs(pid: number | undefined, { mainThread = false } = {}): Promise<number | undefined> {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    // the main thread's own figures: its task id is the process id
    const stat = await readFile(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    // fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
  } catch {
    return undefined;
  }
}
