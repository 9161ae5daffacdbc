import { expectRetryAfter } from './hostileService.js';
import { expect } from 'chai';

/** Helpers speaking the multi-part protocol over real HTTP, as the clients do. */
export async function createUpload(base: string, query = '', token = 'arweave'): Promise<string> {
  const res = await fetch(`${base}/chunks/${token}/-1/-1${query}`);
  expect(res.status).to.equal(200);
  return (await res.json()).id;
}

export async function postChunk(base: string, uploadId: string, offset: number | string, bytes: Uint8Array, token = 'arweave') {
  return fetch(`${base}/chunks/${token}/${uploadId}/${offset}`, {
    method: 'POST',
    body: new Uint8Array(bytes),
    headers: { 'content-type': 'application/octet-stream' },
  });
}

/** posts `raw` cut into chunks of `size` bytes, in the given order of chunk indexes (default: ascending) */
export async function postChunks(base: string, uploadId: string, raw: Uint8Array, size: number, order?: number[]) {
  const offsets = Array.from({ length: Math.ceil(raw.length / size) }, (_, i) => i * size);
  for (const i of order ?? offsets.map((_, i) => i)) {
    const offset = offsets[i]!;
    const res = await postChunk(base, uploadId, offset, raw.subarray(offset, offset + size));
    expect(res.status, `chunk at ${offset}`).to.equal(200);
  }
}

export async function expectText(res: Response, status: number, message: string) {
  expect(res.status).to.equal(status);
  expect(res.statusText).to.equal(message);
  if (status === 429 || status === 503) expectRetryAfter(res.headers.get('retry-after'));
  expect(await res.text()).to.equal(message);
}
