import type { Request } from 'express';
import { InvalidRequest } from '../domain/errors.js';

/** A small request body as UTF-8 text; one longer than `maxBytes` is an invalid request (it is not read further). */
export async function readSmallBody(req: Request, maxBytes: number): Promise<string> {
  const declared = req.get('content-length');
  if (declared !== undefined && Number(declared) > maxBytes) throw new InvalidRequest(`a body of ${declared} bytes, over ${maxBytes}`);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new InvalidRequest(`a body over ${maxBytes} bytes`);
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}
