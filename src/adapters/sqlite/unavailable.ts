/**
 * SQLite result codes that say the file cannot be used now, not that the statement is wrong: another
 * process holds the lock (BUSY, LOCKED), the disk is full (FULL, which SQLite also answers for ENOSPC),
 * it fails (IOERR_*), the file or its directory turned read-only (READONLY_*), or the file (its WAL,
 * its directory) cannot be opened (CANTOPEN_*). Extended codes start with their primary code.
 */
const NOT_NOW = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_CANTOPEN'];

/** the SQLite code of `error` when it is one of those, else undefined */
export function unavailableCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  return NOT_NOW.some((prefix) => code === prefix || code.startsWith(`${prefix}_`)) ? code : undefined;
}

/**
 * Runs `operation`; a SQLite failure of the file (see above) is thrown as `unavailable(code)` with the
 * original as its cause, so the port's callers see their store's "unavailable" error (an HTTP 503).
 */
export function guardSqlite<T>(operation: () => T, unavailable: (code: string, cause: unknown) => Error): T {
  try {
    return operation();
  } catch (error) {
    const code = unavailableCode(error);
    if (code !== undefined) throw unavailable(code, error);
    throw error;
  }
}
