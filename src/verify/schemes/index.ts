import { arweaveScheme } from './arweave.js';
import { ed25519Scheme, injectedAptosScheme, solanaScheme } from './ed25519.js';
import { ethereumScheme, typedEthereumScheme } from './ethereum.js';
import { multiAptosScheme } from './multiAptos.js';
import type { SignatureScheme } from './scheme.js';

export type { SignatureScheme } from './scheme.js';

const schemes: ReadonlyMap<number, SignatureScheme> = new Map(
  [arweaveScheme, ed25519Scheme, ethereumScheme, solanaScheme, injectedAptosScheme, multiAptosScheme, typedEthereumScheme].map((scheme) => [
    scheme.signatureType,
    scheme,
  ]),
);

/** the scheme of a supported signature type (1..7, the ones arbundles verifies), else undefined */
export const schemeFor = (signatureType: number): SignatureScheme | undefined => schemes.get(signatureType);

/** the longest signature plus owner of any supported type, to bound the header buffer */
export const MAX_SIGNATURE_AND_OWNER_BYTES = Math.max(...[...schemes.values()].map((s) => s.signatureLength + s.ownerLength));
