import { readFile, readdir } from 'node:fs/promises';

const TICKS_PER_SECOND = 100; // USER_HZ: what /proc reports CPU time in, on every Linux in use

/** CPU seconds (user + system) a thread of `pid` has used so far (Linux: /proc/<pid>/task/<tid>/stat) */
async function threadCpuSeconds(pid: number, tid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  // the fields after the command name (which may hold spaces, within parentheses)
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU seconds a process used so far: its main thread (the event loop, where a request's bytes are
 * parsed and SHA-384'd) and all its threads together. Unlike throughput, these do not depend on what
 * else runs on the machine, so before and after a change can be compared on a busy one.
 */
export async function cpuSeconds(pid: number): Promise<{ main: number; all: number }> {
  let all = 0;
  for (const tid of await readdir(`/proc/${pid}/task`)) all += await threadCpuSeconds(pid, Number(tid)).catch(() => 0);
  return { main: await threadCpuSeconds(pid, pid), all };
}
