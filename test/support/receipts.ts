import Arweave from 'arweave';
import { deepHash } from 'arbundles';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** The receipt check of the Irys/Bundlr clients, done with arweave-js' own crypto. */
export async function receiptVerifiesWithArweaveJs(receipt: {
  id: string;
  deadlineHeight: number;
  timestamp: number;
  version: string;
  public: string;
  signature: string;
}): Promise<boolean> {
  const message = await deepHash([
    utf8('Bundlr'),
    utf8(receipt.version),
    utf8(receipt.id),
    utf8(String(receipt.deadlineHeight)),
    utf8(String(receipt.timestamp)),
  ]);
  return Arweave.crypto.verify(receipt.public, message, Buffer.from(receipt.signature, 'base64url'));
}
