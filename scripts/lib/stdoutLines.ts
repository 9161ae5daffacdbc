import { once } from 'node:events';

/**
 * Writes to stdout as output is produced, waiting when the pipe is full, so a long history or a
 * long list of findings is never held in memory whole. The CLI's last piece goes through runCli.
 */
export async function writeStdout(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

export const writeLine = (line: string): Promise<void> => writeStdout(`${line}\n`);
