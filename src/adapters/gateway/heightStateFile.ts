import { readFile } from 'node:fs/promises';
import { errnoCode } from '../fs/errno.js';
import { writeFileAtomic } from '../fs/writeFileAtomic.js';
import { heightIn } from './heightIn.js';

/**
 * The last block height accepted, kept in a small JSON file (`{"height":N,"at":T}`, T when it was
 * accepted, in ms since the epoch) so that a restart with the gateway down still signs receipts
 * with a sensible deadline height, and the height guard knows how far the height may have moved
 * since. Files of earlier versions (`{"height":N}`) are read too, without a time.
 */

export interface HeightState {
  height: number;
  /** undefined in files of earlier versions */
  at: number | undefined;
}

/** undefined when the file does not exist yet; throws when it exists but does not hold a height */
export async function readHeightState(file: string): Promise<HeightState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const height = heightIn(text);
  if (height === undefined) throw new Error(`${file} does not hold a block height`);
  return { height, at: atIn(text) };
}

export const writeHeightState = (file: string, { height, at }: HeightState): Promise<void> =>
  writeFileAtomic(file, `${JSON.stringify(at === undefined ? { height } : { height, at })}\n`);

/** the `at` field when it is a time in ms since the epoch; heightIn has checked the text is JSON */
function atIn(json: string): number | undefined {
  const at = (JSON.parse(json) as { at?: unknown }).at;
  return typeof at === 'number' && Number.isSafeInteger(at) && at > 0 ? at : undefined;
}
