import { createApp } from '../http/app.js';
import { withFastStatus } from '../http/fastStatus.js';
import { listen } from '../http/listen.js';
import { createReadiness } from '../http/health.js';
import { closeGracefully, createInFlight, trackConnections } from '../http/shutdown.js';
import { createUploadGuard } from '../http/limits.js';
import { createTempSpace } from '../http/tempSpace.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Wiring } from './context.js';
import type { Stores } from './stores.js';
import type { Shared } from './shared.js';
import { commandRoutes, type CommandSide } from './commands.js';
import { queryRoutes } from './queries.js';

/**
 * The web front of the roles that serve HTTP (commands, queries): the routes of each, the limits
 * against abuse in front of the upload routes, readiness, and the listening server. Its part stops
 * first: not ready from then on, no new connection, requests in flight given the grace period.
 */
export async function startHttp(life: Lifecycle, w: Wiring, stores: Stores, shared: Shared, commands: CommandSide) {
  const { config, log, roles } = w;
  const { metrics, blockHeight } = shared;
  // limits against abuse in front of the upload routes: uploads per client, temporary space, body rate
  const tempSpace = createTempSpace({
    budgetBytes: config.abuse.tempSpaceBytes,
    perClientBytes: config.abuse.tempSpacePerClientBytes,
    disk: shared.disk,
    ...(commands.tally ? { tally: commands.tally } : {}),
  });
  const uploadGuard = roles.commands
    ? await life.open(
        'upload guard',
        () =>
          createUploadGuard(
            {
              ...config.abuse,
              maxDataItemSize: config.maxDataItemSize,
              ...(config.x402 ? { x402: { unsigned: config.x402.dataItemKeyFile !== undefined } } : {}),
            },
            tempSpace,
          ),
        (guard) => guard.stop(),
      )
    : undefined;
  const readiness = createReadiness({
    eventStore: stores.eventStore,
    readStore: stores.readStore,
    blobStore: stores.blobStore,
    diskSpace: shared.disk,
    // where receipts are signed: not ready without a block height fresh enough to sign one
    ...(roles.commands ? { blockHeight } : {}),
    // a commands-only replica answers from its own streams: read-model lag does not make it unready
    ...(roles.queries ? { projectorLag: shared.projectorLag } : {}),
    maxLag: config.readyMaxLag,
    timeoutMs: config.readyCheckTimeoutMs,
    log: (message, fields) => log.warn(message, fields),
  });
  // command handlers at work: the stores close only once they have settled (see the part's stop)
  const inFlight = createInFlight();
  const queryParts = roles.queries ? queryRoutes(w, stores, shared) : undefined;
  const app = createApp({
    observe: { log, metrics },
    ops: { readiness, metrics },
    limits: { maxDataItemSize: config.maxDataItemSize, topUpClaimsPerClientPerMinute: config.topUps.claimsPerClientPerMinute },
    readPace: config.abuse.bodyRate,
    ...(uploadGuard ? { uploadGuard: uploadGuard.router } : {}),
    ...(roles.commands ? { blockHeightFresh: () => blockHeight.current() !== undefined } : {}),
    log: (message, error, fields) => log.error(message, error, fields),
    ...(roles.commands ? commandRoutes(w, stores, shared, commands, inFlight) : {}),
    ...queryParts,
  });
  // the status query, polled by clients, is served ahead of Express's routing (fastStatus.ts)
  const served = queryParts?.queries ? withFastStatus(app, { txStatus: queryParts.queries.txStatus, observe: { log, metrics } }) : app;
  let http: Awaited<ReturnType<typeof listen>> | undefined;
  let connections: ReturnType<typeof trackConnections> | undefined;
  const start = async () => {
    if (!roles.http) return;
    http = await listen(served, config.port, config.host, config.abuse);
    connections = trackConnections(http.server);
  };
  const stop = async () => {
    // not ready from now on; no new connection; requests in flight get the grace period, then are cut
    readiness.stopping();
    // status streams never end by themselves: ended first, so they hold no grace period (clients resume)
    await queryParts?.liveStatus.streams.stop();
    if (http) {
      const { cut } = await closeGracefully(http.server, config.shutdownGraceMs, connections);
      if (cut) log.warn('shutdown grace period over: open connections cut', { graceMs: config.shutdownGraceMs });
    }
    // a cut upload whose bytes were all in is still accepted (durably): wait for it before closing the stores
    if (!(await inFlight.settled(10_000))) log.warn('command handlers still running at shutdown', { count: inFlight.count });
  };
  await life.start({ name: 'http', start, stop });
  return { http, app: http ? app : undefined };
}
