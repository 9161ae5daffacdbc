import type { Response, Router } from 'express';
import { finished } from 'node:stream/promises';
import { TxNotFound } from '../domain/errors.js';
import type { TxProof } from '../queries/txProof.js';
import type { DataItemId } from '../domain/ids.js';
import type { PaceWatch } from './bodyRate.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import { txProofRoute } from './openapi/routes/proof.js';

/** paths per write: about 100 KiB of JSON (a path of a 2 GiB bundle is some 1.3 KiB as base64url) */
const BATCH = 64;

/**
 * `GET /tx/:id/proof`. The body is written as it is made: a 2 GiB item has about 8,200 chunk paths,
 * some 14 MB of JSON, and one batch of them is in memory at a time. The next batch waits until the
 * socket took the last one, and `pace` holds the client to the minimum rate of payloads read back.
 */
export function serveTxProof(router: Router, txProof: (id: DataItemId) => Promise<TxProof | undefined>, pace?: PaceWatch): void {
  serve(router, txProofRoute, async (req, res) => {
    const { id } = parseParams(txProofRoute, req);
    const proof = await txProof(id);
    if (!proof) throw new TxNotFound(id);
    // the paths never change; the block does, from null until mined (and, rarely, in a fork)
    res.set('Cache-Control', `public, max-age=${proof.block ? 3600 : 15}`);
    res.type('application/json');
    await sendProof(proof, res, pace);
  });
}

async function sendProof(proof: TxProof, res: Response, pace?: PaceWatch): Promise<void> {
  const { chunks, chunkCount: _, ...head } = proof;
  let taken = 0;
  let waiting = false;
  const unwatch = pace?.watch({ bytes: () => taken, awaited: () => waiting, cut: (error) => res.destroy(error) });
  try {
    const opening = JSON.stringify(head);
    let batch: string[] = [`${opening.slice(0, -1)},"chunks":[`];
    let first = true;
    const flush = async () => {
      const text = batch.join('');
      batch = [];
      waiting = true;
      // resolves once the socket took it: a client that reads nothing holds one batch, no more
      await new Promise<void>((resolve, reject) => {
        const gone = () => reject(new Error('the client went away before the proof was sent'));
        res.once('close', gone);
        res.write(text, (error) => {
          res.off('close', gone);
          if (error) reject(error);
          else resolve();
        });
      });
      waiting = false;
      taken += Buffer.byteLength(text);
    };
    for (const chunk of chunks()) {
      batch.push(`${first ? '' : ','}${JSON.stringify(chunk)}`);
      first = false;
      if (batch.length >= BATCH) await flush();
    }
    batch.push(']}');
    await flush();
    await finished(res.end());
  } catch (error) {
    res.destroy();
    throw error;
  } finally {
    unwatch?.();
  }
}
