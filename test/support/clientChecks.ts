import * as irysBundles from '@irys/bundles/node';
import { Utils as IrysUtils } from '@irys/upload-core/utils';
import type { UploadReceiptData } from '@irys/upload-core/types';
import { deepHash } from 'arbundles';
import Arweave from 'arweave';
import type { Receipt } from '../../src/domain/receipt.js';

/**
 * How real clients check a receipt, with their own code. Both crypto drivers print a warning on a
 * failed verification, which tampering tests trigger on purpose: it is muted while they run.
 */

/** arweave-js' own crypto driver over arbundles' deep hash of the signed fields. */
export async function arweaveAccepts(receipt: Receipt): Promise<boolean> {
  const message = await deepHash(
    ['Bundlr', receipt.version, receipt.id, String(receipt.deadlineHeight), String(receipt.timestamp)].map((s) => Buffer.from(s, 'utf8')),
  );
  return muted(() => Arweave.crypto.verify(receipt.public, message, Buffer.from(receipt.signature, 'base64url')));
}

/**
 * `@irys/upload-core`'s `Utils.verifyReceipt`, given what the Irys node client gives it (`irys.bundles`
 * is `@irys/bundles/node`'s exports), as `irys.utils.verifyReceipt(receipt)` does.
 */
export async function irysAccepts(receipt: Receipt): Promise<boolean> {
  // The cast only bridges the ESM and CJS declaration files of @irys/bundles (same runtime module).
  const bundles = irysBundles as unknown as Parameters<typeof IrysUtils.verifyReceipt>[0];
  return muted(() => IrysUtils.verifyReceipt(bundles, receipt as unknown as UploadReceiptData));
}

async function muted<T>(run: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return await run();
  } finally {
    console.warn = warn;
  }
}
