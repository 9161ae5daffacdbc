/**
 * The system calls in an `strace -f -yy -o FILE` trace, in the order strace saw them: a call that
 * another thread's call interrupted is printed as `<unfinished ...>` and completed by a later
 * `<... name resumed>` line, so each call has the line where it started and the line where it
 * returned. Call A returned before call B started exactly when `A.done < B.started`.
 */
export interface Syscall {
  pid: number;
  name: string;
  /** line of its entry */
  started: number;
  /** line of its return */
  done: number;
  /** the path of its first argument's file descriptor (`-yy`), e.g. "/data/events.db-wal" */
  fdPath?: string;
  /** whether that descriptor is a TCP socket */
  socket: boolean;
  /** its string arguments, unescaped only as far as strace prints them (file names of a rename) */
  paths: string[];
  /** everything strace printed of its arguments (buffers as escaped C strings) */
  data: string;
}

const LINE = /^(\d+)\s+(.*)$/;
const RESUMED = /^<\.\.\. (\w+) resumed>(.*)$/;
const UNFINISHED = ' <unfinished ...>';
const CALL = /^(\w+)\((.*)$/;
const FD = /^\d+<([^>]*)>/;
const STRING = /"((?:[^"\\]|\\.)*)"/g;

export function parseTrace(text: string): Syscall[] {
  const calls: Syscall[] = [];
  const pending = new Map<number, Syscall>();
  text.split('\n').forEach((line, index) => {
    const m = LINE.exec(line);
    if (!m) return;
    const pid = Number(m[1]);
    const rest = m[2]!;
    const resumed = RESUMED.exec(rest);
    if (resumed) {
      const call = pending.get(pid);
      if (call === undefined || call.name !== resumed[1]) return;
      pending.delete(pid);
      call.done = index;
      call.data += resumed[2];
      return;
    }
    const call = CALL.exec(rest);
    if (!call) return; // signals, exits
    const unfinished = rest.endsWith(UNFINISHED);
    const args = unfinished ? call[2]!.slice(0, -UNFINISHED.length) : call[2]!;
    const fdPath = FD.exec(args)?.[1];
    const entry: Syscall = {
      pid,
      name: call[1]!,
      started: index,
      done: unfinished ? Number.POSITIVE_INFINITY : index,
      ...(fdPath !== undefined ? { fdPath } : {}),
      socket: fdPath?.startsWith('TCP') ?? false,
      paths: [...args.matchAll(STRING)].map((s) => s[1]!),
      data: args,
    };
    calls.push(entry);
    if (unfinished) pending.set(pid, entry);
  });
  return calls;
}
