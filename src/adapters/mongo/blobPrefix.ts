/** Every character a regular expression gives a meaning to, escaped (the MDN list). */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Matches the names strictly under `prefix/`: anchored at the start, so the server walks the
 * index range of the prefix instead of every name, and ended by the slash, so `uploads/u1` does not
 * take `uploads/u10/0` nor a blob named exactly `uploads/u1`. No flags: a case-insensitive regex
 * could not use the index. Keys are validated before they get here; the escaping is for every
 * other caller.
 */
export const underPrefix = (prefix: string): RegExp => new RegExp(`^${escapeRegExp(prefix)}/`);
