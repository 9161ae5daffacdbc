export { createDataItemVerifier, verifyDataItemStream } from './verifier.js';
export { headerOf, MAX_HEADER_BYTES } from './headerOf.js';
export type { DataItemVerifier, Tag, VerifiedDataItem, VerifiedHeader, VerifierOptions } from './types.js';
export { deepHash, DeepHashList, StreamingBlobHash, type DeepHashChunk } from '../crypto/deepHash.js';
export { decodeTags, encodeTags, MAX_TAG_BYTES, MAX_TAG_COUNT, MAX_TAG_NAME_BYTES, MAX_TAG_VALUE_BYTES, type TagRules } from './tags.js';
export { toChecksumAddress } from '../domain/account/ethereumAddress.js';
export { nativeAddress } from './nativeAddress.js';
export { ed25519KeyAddresses, ownerAddresses, ownerAddressesOf } from './ownerAddresses.js';
