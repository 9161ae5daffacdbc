import { readFileSync } from 'node:fs';

/** The service's own version, from package.json (read once, at first use of this module). */
export const serviceVersion: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
