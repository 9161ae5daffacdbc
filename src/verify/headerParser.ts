import { InvalidDataItem } from '../domain/errors.js';
import { MAX_SIGNATURE_AND_OWNER_BYTES, schemeFor, type SignatureScheme } from './schemes/index.js';
import { decodeTags, MAX_TAG_BYTES, maxTagCount, type TagRules } from './tags.js';
import type { Tag } from './types.js';

/**
 * The ANS-104 header, parsed as bytes arrive:
 *
 *   2 signature type (u16 LE) | signature | owner | 1 target presence (+32) | 1 anchor presence (+32)
 *   | 8 tag count (u64 LE) | 8 tag bytes length (u64 LE) | tag bytes | payload...
 *
 * Only header bytes are copied, into one buffer sized for the largest possible header (about 7 KiB),
 * so a hostile length field can never make it grow. Each step knows how many bytes it needs next;
 * whatever is wrong is thrown as soon as the bytes that show it are in.
 */

export interface ParsedHeader {
  scheme: SignatureScheme;
  signature: Buffer;
  owner: Buffer;
  target?: Buffer;
  anchor?: Buffer;
  rawTags: Buffer;
  tags: Tag[];
  /** offset of the first payload byte, that is the header length */
  dataStart: number;
}

const MAX_HEADER_BYTES = 2 + MAX_SIGNATURE_AND_OWNER_BYTES + 33 + 33 + 16 + MAX_TAG_BYTES;

type Step = 'signatureType' | 'signature' | 'owner' | 'targetFlag' | 'target' | 'anchorFlag' | 'anchor' | 'tagSizes' | 'tags' | 'done';

export class HeaderParser {
  private readonly bytes = Buffer.allocUnsafe(MAX_HEADER_BYTES);
  /** header bytes received so far */
  private filled = 0;
  /** the current step runs once `filled` reaches this */
  private need = 2;
  /** offset of the field the current step reads */
  private cursor = 0;
  private step: Step = 'signatureType';
  private scheme: SignatureScheme | undefined;
  private target: Buffer | undefined;
  private anchor: Buffer | undefined;
  private tagCount = 0;
  private rawSignature: Buffer | undefined;
  private result: ParsedHeader | undefined;

  /** `tagRules`: what tag lists pass (tags.ts); arbundles' by default */
  constructor(private readonly tagRules: TagRules = 'arbundles') {}

  /** the raw signature, as soon as its bytes are in */
  get signature(): Buffer | undefined {
    return this.rawSignature;
  }

  get header(): ParsedHeader | undefined {
    return this.result;
  }

  get complete(): boolean {
    return this.step === 'done';
  }

  /** Takes header bytes from the start of `chunk`; returns how many it took (the rest is payload). */
  push(chunk: Uint8Array): number {
    let taken = 0;
    while (!this.complete && taken < chunk.length) {
      const take = Math.min(this.need - this.filled, chunk.length - taken);
      this.bytes.set(chunk.subarray(taken, taken + take), this.filled);
      this.filled += take;
      taken += take;
      // a step may need no further bytes (an empty tag section): run until one does
      while (!this.complete && this.filled === this.need) this.advance();
    }
    return taken;
  }

  private advance(): void {
    const at = this.cursor;
    switch (this.step) {
      case 'signatureType': {
        const type = this.bytes.readUInt16LE(at);
        this.scheme = schemeFor(type);
        if (!this.scheme) throw new InvalidDataItem(`unsupported signature type ${type}`);
        return this.next('signature', at + 2, this.scheme.signatureLength);
      }
      case 'signature':
        this.rawSignature = this.bytes.subarray(at, this.need);
        return this.next('owner', this.need, this.known().ownerLength);
      case 'owner': {
        const problem = this.known().checkHeader(this.signatureBytes(), this.ownerBytes());
        if (problem) throw new InvalidDataItem(problem);
        return this.next('targetFlag', this.need, 1);
      }
      case 'targetFlag':
        return this.isPresent('target', at) ? this.next('target', at + 1, 32) : this.next('anchorFlag', at + 1, 1);
      case 'target':
        this.target = this.bytes.subarray(at, this.need);
        return this.next('anchorFlag', this.need, 1);
      case 'anchorFlag':
        return this.isPresent('anchor', at) ? this.next('anchor', at + 1, 32) : this.next('tagSizes', at + 1, 16);
      case 'anchor':
        this.anchor = this.bytes.subarray(at, this.need);
        return this.next('tagSizes', this.need, 16);
      case 'tagSizes': {
        this.tagCount = this.readSize(at, 'tag count', maxTagCount(this.tagRules));
        const tagBytes = this.readSize(at + 8, 'tag bytes length', MAX_TAG_BYTES);
        if ((this.tagCount === 0) !== (tagBytes === 0)) {
          throw new InvalidDataItem(`${this.tagCount} tags declared in ${tagBytes} tag bytes`);
        }
        return this.next('tags', at + 16, tagBytes);
      }
      case 'tags':
        return this.finish(at, this.need);
      case 'done':
        return;
    }
  }

  private next(step: Step, cursor: number, length: number): void {
    this.step = step;
    this.cursor = cursor;
    this.need = cursor + length;
  }

  private isPresent(field: string, at: number): boolean {
    const flag = this.bytes[at];
    if (flag !== 0 && flag !== 1) throw new InvalidDataItem(`${field} presence byte is ${flag}`);
    return flag === 1;
  }

  private finish(tagsAt: number, dataStart: number): void {
    const rawTags = this.bytes.subarray(tagsAt, dataStart);
    const tags = decodeTags(rawTags, this.tagCount, this.tagRules);
    this.result = {
      scheme: this.known(),
      signature: this.signatureBytes(),
      owner: this.ownerBytes(),
      ...(this.target && { target: this.target }),
      ...(this.anchor && { anchor: this.anchor }),
      rawTags,
      tags,
      dataStart,
    };
    this.step = 'done';
  }

  private readSize(offset: number, what: string, max: number): number {
    // u64 LE: anything above 32 bits is far past every limit
    const low = this.bytes.readUInt32LE(offset);
    const high = this.bytes.readUInt32LE(offset + 4);
    if (high !== 0 || low > max) throw new InvalidDataItem(`${what} over ${max}`);
    return low;
  }

  private signatureBytes(): Buffer {
    if (!this.rawSignature) throw new Error('signature not parsed yet');
    return this.rawSignature;
  }

  private ownerBytes(): Buffer {
    const scheme = this.known();
    const start = 2 + scheme.signatureLength;
    return this.bytes.subarray(start, start + scheme.ownerLength);
  }

  private known(): SignatureScheme {
    if (!this.scheme) throw new Error('signature type not parsed yet');
    return this.scheme;
  }
}
