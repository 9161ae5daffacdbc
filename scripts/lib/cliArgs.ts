import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseAccountAddress } from '../../src/domain/account/ids.js';
import { ExpiresAt, PositiveWinc } from '../../src/http/adminSchemas.js';
import type { z } from 'zod';

/** Something wrong with the command line: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs, strict, with its complaints (unknown option, missing value) as usage errors. */
export function parseCliArgs<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** the value under the same schema the admin API uses, or a usage error naming the argument */
export function argOf<S extends z.ZodType>(schema: S, value: string | undefined, name: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UsageError(`invalid ${name}: ${value === undefined ? '(missing)' : JSON.stringify(value)}`);
  return parsed.data;
}

export function addressArg(value: string | undefined, name: string): string {
  const address = value === undefined ? undefined : parseAccountAddress(value);
  if (address === undefined) throw new UsageError(`invalid ${name}: ${value === undefined ? '(missing)' : JSON.stringify(value)}`);
  return address;
}

export const wincArg = (value: string | undefined) => argOf(PositiveWinc, value, 'winc (a positive integer)');
export const expiresArg = (value: string) => argOf(ExpiresAt, value, '--expires (ISO date with time and offset, e.g. 2030-01-01T00:00:00Z)');
