import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseAccountAddress } from '../../src/domain/account/ids.js';
import { ExpiresAt, PositiveWinc } from '../../src/contract/adminSchemas.js';
import type { z } from 'zod';

/** Something wrong with the command line: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * An id the service hands out, base64url, which may begin with "-" (one in 64 does): a plan id (22
 * characters), an upload id (24, up to 64 accepted), a data item id or an Arweave address (43). Such an
 * argument is a positional one, never an option: `npm run history -- -Mx…` names an item or a plan.
 */
const idShaped = /^-[A-Za-z0-9_-]{21,63}$/;

/**
 * node:util parseArgs, strict, with its complaints (unknown option, missing value) as usage errors. An
 * argument shaped like an id is positional even when it begins with "-", unless it is an option's value.
 */
export function parseCliArgs<O extends Options>(args: string[], options: O) {
  const all = { ...options, help: { type: 'boolean' as const, short: 'h' } };
  const takesValue = (arg: string | undefined) =>
    arg !== undefined &&
    Object.entries(all).some(([name, o]) => o.type === 'string' && (arg === `--${name}` || (o.short !== undefined && arg === `-${o.short}`)));
  const end = args.indexOf('--');
  const kept: { arg: string; i: number }[] = [];
  const dashedIds: { value: string; i: number }[] = [];
  args.forEach((arg, i) => {
    if ((end === -1 || i < end) && idShaped.test(arg)) {
      // node:util calls a value that begins with "-" ambiguous; written as --name=value it is not
      if (takesValue(args[i - 1])) kept[kept.length - 1]!.arg += `=${arg}`;
      else dashedIds.push({ value: arg, i });
    } else kept.push({ arg, i });
  });
  try {
    const parsed = parseArgs({ args: kept.map((k) => k.arg), options: all, allowPositionals: true, strict: true, tokens: true });
    const positionalAt = parsed.tokens.flatMap((t) => (t.kind === 'positional' ? [{ i: kept[t.index]!.i, value: t.value }] : []));
    const positionals = [...positionalAt, ...dashedIds].sort((a, b) => a.i - b.i).map((p) => p.value);
    return { values: parsed.values, positionals };
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
