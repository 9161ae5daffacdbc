/** The `code` of a Node system error (ENOENT, EISDIR...), or undefined for anything else. */
export const errnoCode = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

/** "Nothing is there": the path or one of its parents does not exist, or a parent is a file. */
export const isAbsent = (error: unknown): boolean => {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
};
