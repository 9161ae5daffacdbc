import { createHash } from 'node:crypto';
import { DataItemTooLarge, InvalidDataItem } from '../domain/errors.js';
import { blobHash, blobHashFromDigest, DeepHashList, StreamingBlobHash, type BlobDigest } from '../crypto/deepHash.js';
import { HeaderParser, type ParsedHeader } from './headerParser.js';
import type { DataItemVerifier, VerifiedDataItem, VerifiedHeader, VerifierOptions } from './types.js';

/**
 * Verifies an ANS-104 data item while it streams. The header is parsed and checked as it arrives;
 * the payload is only hashed, so memory stays at one header (a few KiB) whatever the item size.
 * The signed message is arbundles' getSignatureData:
 *   deepHash(["dataitem", "1", String(signatureType), owner, target or empty, anchor or empty,
 *             raw tag bytes, payload])
 * of which all but the payload are hashed when the header completes.
 */

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const EMPTY_BLOB = blobHash(Buffer.alloc(0));

// the first three signed fields depend on the signature type only
const signedPrefixes = new Map<number, DeepHashList>();
function signedPrefix(signatureType: number): DeepHashList {
  let prefix = signedPrefixes.get(signatureType);
  if (!prefix) {
    prefix = new DeepHashList(8);
    for (const field of ['dataitem', '1', String(signatureType)]) prefix.add(blobHash(Buffer.from(field, 'utf8')));
    signedPrefixes.set(signatureType, prefix);
  }
  return prefix.clone();
}

export function createDataItemVerifier(options: VerifierOptions): DataItemVerifier {
  return new StreamingVerifier(options.maxSize, new HeaderParser(options.strictTags ? 'strict' : 'arbundles'));
}

/** convenience over any async iterable of bytes (a request, a file stream) */
export async function verifyDataItemStream(source: AsyncIterable<Uint8Array>, options: VerifierOptions): Promise<VerifiedDataItem> {
  const verifier = createDataItemVerifier(options);
  for await (const chunk of source) verifier.write(chunk);
  return verifier.end();
}

class StreamingVerifier implements DataItemVerifier {
  private received = 0;
  private failure: unknown;
  private ended: Promise<VerifiedDataItem> | undefined;
  private verifiedHeader: VerifiedHeader | undefined;
  private signedPrefix: DeepHashList | undefined;
  private readonly payload = new StreamingBlobHash();
  private cachedId: string | undefined;

  constructor(
    private readonly maxSize: number,
    private readonly parser: HeaderParser,
  ) {}

  get id(): string | undefined {
    if (this.cachedId === undefined && this.parser.signature) this.cachedId = sha256url(this.parser.signature);
    return this.cachedId;
  }

  get header(): VerifiedHeader | undefined {
    return this.verifiedHeader;
  }

  write(chunk: Uint8Array): void {
    this.guarded(() => {
      this.count(chunk.byteLength);
      let offset = 0;
      if (!this.parser.complete) {
        offset = this.parser.push(chunk);
        if (!this.parser.complete) return;
        this.headerComplete();
      }
      if (offset < chunk.byteLength) this.payload.update(offset === 0 ? chunk : chunk.subarray(offset));
    });
  }

  writeHeader(chunk: Uint8Array): number {
    return this.guarded(() => {
      if (this.parser.complete) return 0;
      const taken = this.parser.push(chunk);
      this.count(taken);
      if (this.parser.complete) this.headerComplete();
      return taken;
    });
  }

  /** runs a write: refused after a failure or the end, and a failure it throws is the verifier's from then on */
  private guarded<T>(write: () => T): T {
    if (this.failure !== undefined) throw this.failure;
    if (this.ended) throw new Error('data item verifier: write after end');
    try {
      return write();
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  private count(bytes: number): void {
    this.received += bytes;
    if (this.received > this.maxSize) throw new DataItemTooLarge(`more than ${this.maxSize} bytes`);
  }

  private headerComplete(): void {
    if (!this.verifiedHeader) this.onHeader(this.parsedHeader());
  }

  end(): Promise<VerifiedDataItem> {
    this.ended ??= this.finish();
    return this.ended;
  }

  endWithPayload(payload: BlobDigest): Promise<VerifiedDataItem> {
    this.ended ??= this.finish(payload);
    return this.ended;
  }

  /** `payload`: the payload's digest, when its bytes were hashed elsewhere (none went through write) */
  private async finish(payload?: BlobDigest): Promise<VerifiedDataItem> {
    if (this.failure !== undefined) throw this.failure;
    const header = this.verifiedHeader;
    const signedPrefix = this.signedPrefix;
    if (!header || !signedPrefix) throw new InvalidDataItem(`truncated: ${this.received} bytes end inside the header`);
    if (payload) {
      if (this.payload.byteLength > 0) throw new Error('data item verifier: payload bytes written and given as a digest');
      // only the header's bytes were counted so far
      this.count(payload.byteLength);
    }
    const parsed = this.parsedHeader();
    const payloadSha384 = payload ? payload.sha384 : this.payload.sha384();
    const message = signedPrefix.add(blobHashFromDigest(payload ? payload.byteLength : this.payload.byteLength, payloadSha384)).digest();
    if (!(await parsed.scheme.verify(parsed.owner, message, parsed.signature))) {
      throw new InvalidDataItem(`signature of type ${parsed.scheme.signatureType} does not verify`);
    }
    return {
      ...header,
      rawContentLength: this.received,
      payloadContentLength: this.received - header.payloadDataStart,
      payloadSha384: Buffer.from(payloadSha384).toString('hex'),
    };
  }

  private onHeader(parsed: ParsedHeader): void {
    const { scheme, owner, target, anchor } = parsed;
    this.signedPrefix = signedPrefix(scheme.signatureType)
      .add(blobHash(owner))
      .add(target ? blobHash(target) : EMPTY_BLOB)
      .add(anchor ? blobHash(anchor) : EMPTY_BLOB)
      .add(blobHash(parsed.rawTags));
    this.verifiedHeader = headerFields(parsed, this.id);
  }

  private parsedHeader(): ParsedHeader {
    const parsed = this.parser.header;
    if (!parsed) throw new Error('data item header not parsed yet');
    return parsed;
  }
}

const sha256url = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('base64url');

/**
 * A parsed header's fields as the service keeps them (`id`: the signature's SHA-256, when the caller
 * has it already). The header is not verified by this: its signature is checked once the payload's
 * hash is known (`StreamingVerifier.finish`).
 */
export function headerFields(parsed: ParsedHeader, id?: string): VerifiedHeader {
  const { scheme, owner, target, anchor, tags } = parsed;
  const contentType = tags.find((tag) => tag.name.toLowerCase() === 'content-type')?.value;
  return {
    id: id ?? sha256url(parsed.signature),
    signatureType: scheme.signatureType,
    signature: parsed.signature.toString('base64url'),
    ownerPublicKey: owner.toString('base64url'),
    owner: sha256url(owner),
    nativeAddress: scheme.nativeAddress(owner),
    ...(target && { target: target.toString('base64url') }),
    ...(anchor && { anchor: anchor.toString('base64url') }),
    tags,
    contentType: contentType ?? DEFAULT_CONTENT_TYPE,
    payloadDataStart: parsed.dataStart,
  };
}
