import { pino, stdTimeFunctions, type DestinationStream } from 'pino';

/**
 * Structured logger on pino: one JSON line per entry (stderr by default), `level` as a word, `time`
 * ISO 8601, `message`. Never given payload bytes; secrets that reach it by mistake (an
 * `authorization` header, the admin token) are redacted by path.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error?: unknown, fields?: Record<string, unknown>): void;
}

/** field paths whose values are replaced by `[redacted]` wherever they appear (one level of nesting) */
const REDACTED = [
  'authorization',
  'Authorization',
  'adminToken',
  'ADMIN_TOKEN',
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  '*.adminToken',
  '*.ADMIN_TOKEN',
];

const describe = (error: unknown) =>
  error instanceof Error ? { error: error.message, name: error.name, stack: error.stack } : error === undefined ? {} : { error: String(error) };

/**
 * `write` receives each line without its newline (tests capture them); the default writes to
 * stderr synchronously, as `process.stderr` does for files and pipes, so nothing is lost at exit.
 */
export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const destination: DestinationStream = write
    ? { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) }
    : pino.destination({ dest: 2, sync: true });
  const logger = pino(
    {
      level,
      messageKey: 'message',
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    destination,
  );
  return {
    debug: (m, f) => logger.debug(f ?? {}, m),
    info: (m, f) => logger.info(f ?? {}, m),
    warn: (m, f) => logger.warn(f ?? {}, m),
    error: (m, e, f) => logger.error({ ...describe(e), ...f }, m),
  };
}

/** `(message, error?)` callbacks of the adapters and process managers, logged as warnings */
export const warningsTo =
  (log: Logger) =>
  (message: string, error?: unknown): void =>
    log.warn(message, error === undefined ? undefined : { error: error instanceof Error ? error.message : String(error) });
