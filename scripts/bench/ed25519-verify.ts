import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { indexToType } from 'arbundles';
import { ed25519Scheme } from '../../src/verify/schemes/ed25519.js';
import { emitJson, round, say } from './lib/output.js';

/**
 * One ed25519 signature check (type 2, a 48-byte deep hash), three ways, in the same run:
 * arbundles' own (@noble/ed25519, pure JS, what the service ran before), OpenSSL through
 * node:crypto on the event loop (key import included), and the service's scheme (OpenSSL on the
 * thread pool, 32 in flight: wall time, and the event loop's share of it).
 * Usage: tsx scripts/bench/ed25519-verify.ts [--count 300] [--json]
 */

const { values } = parseArgs({ options: { count: { type: 'string', default: '300' }, json: { type: 'boolean', default: false } } });
const count = Number(values.count);

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const owner = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
const messages = Array.from({ length: count }, (_, i) => Buffer.alloc(48, i));
const signatures = messages.map((m) => sign(null, m, privateKey));

async function msPer(run: (i: number) => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(20, count); i++) await run(i);
  const started = performance.now();
  for (let i = 0; i < count; i++) await run(i);
  return (performance.now() - started) / count;
}

const noble = await msPer((i) => indexToType[2]!.verify(owner, messages[i]!, signatures[i]!));
const openssl = await msPer((i) => {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: owner.toString('base64url') }, format: 'jwk' });
  return verify(null, messages[i]!, key, signatures[i]!);
});

const elu = performance.eventLoopUtilization();
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < count) {
      const i = next++;
      if (!(await ed25519Scheme.verify(owner, messages[i]!, signatures[i]!))) throw new Error('a genuine signature did not verify');
    }
  }),
);
const schemeWall = (performance.now() - started) / count;
const schemeLoop = performance.eventLoopUtilization(elu).active / count;

say(`ed25519 verify, ${count} signatures each way`);
say(`  arbundles (@noble/ed25519):            ${noble.toFixed(3)} ms each`);
say(`  OpenSSL on the event loop (+ key):     ${openssl.toFixed(3)} ms each (${(noble / openssl).toFixed(1)}x)`);
say(`  the scheme, thread pool, 32 in flight: ${schemeWall.toFixed(3)} ms each, ${schemeLoop.toFixed(3)} ms of it on the event loop`);
emitJson({
  benchmark: 'ed25519-verify',
  count,
  nobleMs: round(noble, 3),
  opensslMs: round(openssl, 3),
  ratio: round(noble / openssl, 1),
  schemeWallMs: round(schemeWall, 3),
  schemeEventLoopMs: round(schemeLoop, 3),
});
