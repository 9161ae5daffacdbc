import { bundleAndSignData, type DataItem, type Signer } from 'arbundles';
import { signedItem, signers } from '../../support/items.js';
import { bytesOf } from './random.js';

/**
 * Signed items of several signature types and sizes. `sizes` are payload lengths; the signer
 * cycles through arweave (type 1), ethereum (3), solana (2) and hex-solana (4).
 */
export async function mixedItems(sizes: readonly number[]): Promise<DataItem[]> {
  const cycle: Signer[] = [signers.arweave(), signers.ethereum(), signers.solana(), signers.hexSolana()];
  const items: DataItem[] = [];
  for (const [i, size] of sizes.entries()) {
    const tags =
      i % 3 === 0
        ? []
        : [
            { name: 'Content-Type', value: 'application/octet-stream' },
            { name: 'n', value: String(i) },
          ];
    items.push(await signedItem(cycle[i % cycle.length] as Signer, bytesOf(size, i + 1), tags));
  }
  return items;
}

/** arbundles' own bundle of already-signed items, in the given order */
export async function arbundlesBundle(items: readonly DataItem[]): Promise<Buffer> {
  // the signer is needed only for unsigned items, and these are all signed
  const bundle = await bundleAndSignData([...items], signers.ethereum());
  return bundle.getRaw();
}
