import type { AcceptDeps } from '../app/acceptance/acceptDataItem.js';
import { EthereumSigner } from 'arbundles';
import { uploadWithX402, type X402Network } from '../app/x402/x402Upload.js';
import { uploadUnsignedWithX402, type UnsignedRequest } from '../app/x402/unsignedUpload.js';
import { X402PaymentRepository } from '../app/x402/payments.js';
import { createX402Settlement, readKeyFile } from '../adapters/x402/settlement.js';
import { loadX402Packages } from '../x402Packages.js';
import type { EventStore } from '../ports/eventStore.js';
import type { BlobHasher } from '../crypto/blobHasher.js';
import type { X402Handlers } from '../http/x402.js';
import type { InFlight } from '../http/shutdown.js';
import type { Config } from '../config.js';

/** the networks x402 payments are taken on and the record of their settlements, when X402_NETWORKS configures them */
export interface X402Side {
  networks: X402Network[];
  payments: X402PaymentRepository;
}

/** built once per process: the upload routes and the recovery pass (background.ts) share the settlements */
export async function x402SideOf(config: Config, eventStore: EventStore): Promise<X402Side | undefined> {
  const x402 = config.x402;
  if (!x402) return undefined;
  // the x402 package and viem, loaded only here (about 80 MiB a service without x402 does not hold)
  await loadX402Packages();
  const networks: X402Network[] = x402.networks.map((n) => ({
    network: n.network,
    usdc: n.usdc,
    payTo: n.payTo,
    eip712: { name: n.eip712Name, version: n.eip712Version },
    settlement: createX402Settlement(
      {
        network: n.network,
        chainId: n.chainId,
        rpcUrl: n.rpcUrl,
        usdc: n.usdc,
        payTo: n.payTo,
        ...(n.facilitatorUrl ? { facilitatorUrl: n.facilitatorUrl } : {}),
        ...(n.keyFile ? { keyFile: n.keyFile } : {}),
      },
      x402.rpcTimeoutMs,
    ),
  }));
  return { networks, payments: new X402PaymentRepository(eventStore) };
}

/** x402 pay-per-upload where commands run, when X402_NETWORKS configures it (else its routes are not served) */
export function x402Routes(config: Config, side: X402Side | undefined, accept: AcceptDeps, hasher: BlobHasher, inFlight: InFlight): { x402?: X402Handlers } {
  const x402 = config.x402;
  if (!x402 || !side) return {};
  const deps = {
    ...accept,
    networks: side.networks,
    payments: side.payments,
    wincPerUsdc: x402.wincPerUsdc,
    maxDataItemSize: config.maxDataItemSize,
    strictTags: config.strictTags,
    hasher,
  };
  const keyFile = x402.dataItemKeyFile;
  const dataItemSigner = keyFile ? new EthereumSigner(readKeyFile(keyFile).slice(2)) : undefined;
  return {
    x402: {
      uploadSigned: inFlight.track((request) => uploadWithX402(deps, request)),
      ...(dataItemSigner ? { uploadUnsigned: inFlight.track((request: UnsignedRequest) => uploadUnsignedWithX402({ ...deps, dataItemSigner }, request)) } : {}),
    },
  };
}
