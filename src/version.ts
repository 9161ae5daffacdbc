import { readFileSync } from 'node:fs';

/**
 * The repository's package.json: one directory up from `src/` when run from source (tsx), two from
 * `dist/src/` when compiled (`npm run build`).
 */
function packageJson(): { version: string } {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version: string };
      if (parsed.name === 'permaweb-upload-service') return parsed;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error(`no package.json of the service above ${import.meta.url}`);
}

/** The service's own version, from package.json (read once, at first use of this module). */
export const serviceVersion: string = packageJson().version;
