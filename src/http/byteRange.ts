import type { ByteRange } from '../ports/blobStore.js';

/**
 * What a `Range` header asks of a body of `size` bytes (RFC 9110 section 14): one range (`bytes=a-b`,
 * `bytes=a-`, `bytes=-n`, clipped to the body), `unsatisfiable` (416), or `whole` (200): no header,
 * a header of another unit or shape (ignored, as the RFC allows), or several ranges. Several ranges
 * are answered with the whole body rather than multipart/byteranges: the clients of stored items
 * (browsers, media players, gateways) ask for one, and the whole body is a correct answer to any.
 */
export type RangeAnswer = { kind: 'whole' } | { kind: 'unsatisfiable' } | { kind: 'range'; range: ByteRange };

const WHOLE = { kind: 'whole' } as const;
const UNSATISFIABLE = { kind: 'unsatisfiable' } as const;

export function rangeOf(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return WHOLE;
  const spec = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!spec) return WHOLE;
  const [, first = '', last = ''] = spec;
  if (first === '' && last === '') return WHOLE;
  if (first === '') {
    // a suffix: the last n bytes (all of them when n > size)
    const n = Number(last);
    if (n === 0 || size === 0) return UNSATISFIABLE;
    return { kind: 'range', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(first);
  // `bytes=5-2` is not a valid range: ignored
  if (last !== '' && Number(last) < start) return WHOLE;
  if (start >= size) return UNSATISFIABLE;
  return { kind: 'range', range: { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) } };
}

/** `If-None-Match` lists `etag` (weakly compared, as the RFC asks for this header) or is `*` */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === etag);
}
