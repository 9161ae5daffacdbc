import { readFile } from 'node:fs/promises';
import { errnoCode } from '../fs/errno.js';
import { writeFileAtomic } from '../fs/writeFileAtomic.js';
import { heightIn } from './heightIn.js';

/**
 * The last block height seen, kept in a small JSON file (`{"height":N}`) so that a restart with the
 * gateway down still signs receipts with a sensible deadline height.
 */

/** undefined when the file does not exist yet; throws when it exists but does not hold a height */
export async function readHeightState(file: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const height = heightIn(text);
  if (height === undefined) throw new Error(`${file} does not hold a block height`);
  return height;
}

export const writeHeightState = (file: string, height: number): Promise<void> =>
  writeFileAtomic(file, `${JSON.stringify({ height })}\n`);
