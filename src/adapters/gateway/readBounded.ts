import { bestEffort } from '../../bestEffort.js';
/**
 * A response's body as UTF-8 text (as `response.text()` decodes it), or undefined once it passes
 * `maxBytes`: then the rest is not read, the body is cancelled (which closes the connection), and
 * what was read is dropped. A declared length past the bound is refused before a byte is read.
 */
export async function readBounded(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    if (response.body) await bestEffort(response.body.cancel(), 'an unread body is dropped anyway');
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await bestEffort(reader.cancel(), 'an unread body is dropped anyway');
      return undefined;
    }
    parts.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(parts));
}
