import type { KeyObject } from 'node:crypto';
import { createLru } from '../../lru.js';

/**
 * The public keys of the owners seen last, each imported once: an owner usually signs many items
 * in a row (a wallet uploading a folder, a bundler's own key), and OpenSSL keeps what it derives
 * from a key on the key object itself. For RSA-4096 (the hot path) a verification with the key
 * already imported costs well under the CPU of an import and first use, and far less of it on the
 * event loop. A key that cannot be imported throws and is not kept.
 */
export function publicKeyCache(maxEntries: number, importKey: (encodedOwner: string) => KeyObject) {
  const keys = createLru<string, KeyObject>(maxEntries);
  return {
    /** the key of these owner bytes (by their base64url encoding, the form the import takes) */
    of(owner: Uint8Array): KeyObject {
      const encoded = Buffer.from(owner.buffer, owner.byteOffset, owner.byteLength).toString('base64url');
      let key = keys.get(encoded);
      if (key === undefined) {
        key = importKey(encoded);
        keys.set(encoded, key);
      }
      return key;
    },
    get size(): number {
      return keys.size;
    },
  };
}

/** owners whose keys are kept per signature scheme: at most a few MiB for RSA-4096 */
export const PUBLIC_KEYS_KEPT = 1024;
