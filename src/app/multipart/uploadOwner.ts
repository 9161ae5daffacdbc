import type { BlobStore } from '../../ports/blobStore.js';
import { legacyUploadDataKey } from '../../domain/upload/ids.js';
import type { Chunk, Upload } from '../../domain/upload/state.js';
import { headerOf, MAX_HEADER_BYTES, type VerifiedHeader } from '../../verify/index.js';

export type OwnerLookup = (upload: Upload) => Promise<string | undefined>;

/**
 * The native address of an upload's owner: recorded with its header chunk, or undefined until a
 * header chunk whose header parses arrives. Uploads of earlier versions recorded no owner: theirs is
 * read from the header chunk's bytes, and remembered per header chunk digest (a replaced one is read again).
 */
export function createOwnerLookup(blobStore: BlobStore, maxRemembered = 10_000): OwnerLookup {
  const owners = new Map<string, string>();
  return async (upload) => {
    if (upload.owner !== undefined) return upload.owner;
    const header = upload.chunks.get(0);
    if (!header || header.blobKey !== legacyUploadDataKey(upload.uploadId)) return undefined;
    const key = `${upload.uploadId}:${header.sha256}`;
    const known = owners.get(key);
    if (known) return known;
    const owner = (await headerOfChunk(blobStore, header))?.nativeAddress;
    if (owner) {
      if (owners.size >= maxRemembered) owners.delete(owners.keys().next().value!);
      owners.set(key, owner);
    }
    return owner;
  };
}

/** the header that the first bytes of an upload's header chunk hold (undefined when they parse as none) */
export async function headerOfChunk(blobStore: Pick<BlobStore, 'read'>, header: Chunk): Promise<VerifiedHeader | undefined> {
  const parts: Uint8Array[] = [];
  for await (const part of await blobStore.read(header.blobKey, { start: 0, end: Math.min(header.length, MAX_HEADER_BYTES) - 1 }))
    parts.push(part as Uint8Array);
  return headerOf(Buffer.concat(parts));
}
