// `npm run build`: the service as the JavaScript it runs in production (`npm start`, the image, the
// tests' and benchmarks' service processes). tsc compiles src/ and projections/ into dist/
// (tsconfig.build.json, incremental: a build with nothing changed takes a few seconds), then this
// copies what tsc does not (the plain-JavaScript worker entries `*.mjs`, the status pages' static
// files) and stamps the build: dist/.built, dated when the build started, which
// scripts/lib/serviceProcess.ts compares with the sources' dates.
import { execFileSync } from 'node:child_process';
import { cp, readdir, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const started = new Date();

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

const workerEntries = (await readdir(join(root, 'src'), { recursive: true })).filter((file) => file.endsWith('.mjs'));
for (const file of workerEntries) await cp(join(root, 'src', file), join(dist, 'src', file));
await cp(join(root, 'src/http/dashboard/static'), join(dist, 'src/http/dashboard/static'), { recursive: true });

// a source saved while this build ran is newer than the stamp: it counts as not built
const stamp = join(dist, '.built');
await writeFile(stamp, `${started.toISOString()}\n`);
await utimes(stamp, started, started);
console.error(`built dist/src/main.js in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`);
