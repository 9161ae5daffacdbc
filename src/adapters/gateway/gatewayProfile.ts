import type { HeightGuard } from './heightGuard.js';

/**
 * What kind of gateway `GATEWAY_URL` is, told from its `GET /info` answer, and the settings that
 * work there. arlocal (the local gateway Arweave developers test against; 1.1.66 answers
 * `"network": "arlocal.N.1"`) differs from an Arweave node in two ways the service must follow:
 * - it stores each chunk after the last one it got, whatever the chunk's offset: chunks posted
 *   side by side land out of order, and the bundle reads back scrambled at its items' offsets while
 *   the service reports them FINALIZED. So BUNDLE_CHUNK_CONCURRENCY is 1 there, whatever is set
 *   (more is never safe on arlocal).
 * - it mines as many blocks as asked at once (`/mine/200`), far faster than the height guard
 *   believes blocks come: its real heights would be refused and bundles stall at their anchor's
 *   height. So BLOCK_HEIGHT_MAX_JUMP is at least ARLOCAL_MAX_JUMP_BLOCKS there (a higher setting
 *   stays); an absurd height is still refused.
 *
 * The first answer with a valid height decides (the block height source's at start-up, or
 * whichever comes first once a gateway down at start-up answers), and one warning line names the
 * settings overridden and why. Until then, and on any other gateway, the settings stay as set.
 */

/** the jump allowed on arlocal: far more blocks than a developer mines at once, far fewer than an absurd height */
export const ARLOCAL_MAX_JUMP_BLOCKS = 1_000_000;

export type GatewayKind = 'arlocal' | 'other';

/** the kind of gateway a `GET /info` answer comes from (its `network` name) */
export function gatewayKindOf(info: string): { kind: GatewayKind; network: string | undefined } {
  let network: unknown;
  try {
    network = (JSON.parse(info) as { network?: unknown } | null)?.network;
  } catch {
    return { kind: 'other', network: undefined };
  }
  if (typeof network !== 'string') return { kind: 'other', network: undefined };
  return { kind: network.startsWith('arlocal') ? 'arlocal' : 'other', network };
}

export interface GatewayProfileOptions {
  gatewayUrl: string;
  /** the guard of the heights the gateway answers, shared by the block height source and the bundler */
  heights: HeightGuard;
  /** BLOCK_HEIGHT_MAX_JUMP as configured */
  maxJumpBlocks: number;
  /** BUNDLE_CHUNK_CONCURRENCY as configured */
  chunkConcurrency: number;
  /** the one warning line, when settings are overridden */
  warn: (message: string) => void;
}

export interface GatewayProfile {
  /** judges a `GET /info` answer (passed as `observeInfo` to the block height source and the bundler's gateway) */
  observeInfo(info: string): void;
  /** the gateway's kind, undefined until it first answered */
  kind(): GatewayKind | undefined;
  /** `settings` with `chunkConcurrency` as the gateway takes it, read at each post of a bundle's chunks */
  bundlerSettings<T extends { chunkConcurrency: number }>(settings: T): T;
}

export function createGatewayProfile({ gatewayUrl, heights, maxJumpBlocks, chunkConcurrency: configured, warn }: GatewayProfileOptions): GatewayProfile {
  let kind: GatewayKind | undefined;
  let chunkConcurrency = configured;

  function adoptArlocal(network: string) {
    const overridden: string[] = [];
    if (configured > 1) {
      chunkConcurrency = 1;
      overridden.push(`BUNDLE_CHUNK_CONCURRENCY ${configured} -> 1 (arlocal stores chunks in the order they arrive, whatever their offsets)`);
    }
    if (maxJumpBlocks < ARLOCAL_MAX_JUMP_BLOCKS) {
      heights.raiseMaxJump(ARLOCAL_MAX_JUMP_BLOCKS);
      overridden.push(`BLOCK_HEIGHT_MAX_JUMP ${maxJumpBlocks} -> ${ARLOCAL_MAX_JUMP_BLOCKS} (arlocal mines many blocks at once)`);
    }
    // the gateway's own words, cut short: one line of the log, whatever it answers
    if (overridden.length > 0) warn(`gateway ${gatewayUrl} is arlocal (network "${network.slice(0, 64)}"): overriding ${overridden.join('; ')}`);
  }

  return {
    observeInfo(info) {
      if (kind !== undefined) return;
      const seen = gatewayKindOf(info);
      kind = seen.kind;
      if (seen.kind === 'arlocal') adoptArlocal(seen.network!);
    },
    kind: () => kind,
    bundlerSettings: (bundler) => ({
      ...bundler,
      get chunkConcurrency() {
        return chunkConcurrency;
      },
    }),
  };
}
