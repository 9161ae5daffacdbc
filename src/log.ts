/** Minimal structured logger: one JSON line per entry on stderr. Never given payload bytes or secrets. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error?: unknown, fields?: Record<string, unknown>): void;
}

const describe = (error: unknown) =>
  error instanceof Error ? { error: error.message, name: error.name, stack: error.stack } : error === undefined ? {} : { error: String(error) };

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const at = (l: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (rank[l] < rank[level]) return;
    write(JSON.stringify({ level: l, time: new Date().toISOString(), message, ...fields }));
  };
  return {
    debug: (m, f) => at('debug', m, f),
    info: (m, f) => at('info', m, f),
    warn: (m, f) => at('warn', m, f),
    error: (m, e, f) => at('error', m, { ...describe(e), ...f }),
  };
}

/** `(message, error?)` callbacks of the adapters and process managers, logged as warnings */
export const warningsTo =
  (log: Logger) =>
  (message: string, error?: unknown): void =>
    log.warn(message, error === undefined ? undefined : { error: error instanceof Error ? error.message : String(error) });
