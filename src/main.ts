import { ConfigError, parseConfig } from './config.js';
import { createLogger } from './log.js';
import { startService } from './service.js';
import { tuneHeap } from './heapTuning.js';
import { ReadModelsAhead } from '../projections/aheadOfEvents.js';

/** `npm start`: the whole service in one process on embedded defaults under ./data. */
async function main() {
  let config;
  try {
    config = parseConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  const service = await startService(config, log);
  // a role that serves no HTTP has only background timers, which do not keep a process alive
  const keepAlive = setInterval(() => {}, 60_000);
  let stopping: { signal: string; at: number } | undefined;
  /**
   * SIGTERM/SIGINT: stop accepting, let requests in flight finish within SHUTDOWN_GRACE_MS, cut the
   * rest, stop the background work at a checkpoint, flush and close the stores, exit 0. A second
   * signal, or a stop that hangs well past the grace period, exits at once with 1: what got a
   * receipt is durable already, so nothing answered is lost either way.
   */
  const stop = async (signal: string) => {
    if (stopping) {
      // under `npm start` one Ctrl-C comes twice: the terminal signals the whole process group, npm
      // included, and npm forwards its copy (npm/cli#5021). The same signal at once is that request.
      if (signal === stopping.signal && performance.now() - stopping.at < SAME_SIGNAL_AGAIN_MS) return;
      log.warn('second signal while stopping: exiting now', { signal });
      process.exit(1);
    }
    stopping = { signal, at: performance.now() };
    log.info('stopping', { signal, graceMs: config.shutdownGraceMs });
    clearInterval(keepAlive);
    setTimeout(() => {
      log.error('shutdown did not finish in time: exiting now', undefined, { graceMs: config.shutdownGraceMs });
      process.exit(1);
    }, config.shutdownGraceMs + HUNG_STOP_MS).unref();
    try {
      await service.stop();
    } catch (error) {
      log.error('shutdown failed', error);
      process.exit(1);
    }
    log.info('stopped', { signal });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // before it says it serves: the first request finds the start's garbage collected (heapTuning.ts)
  tuneHeap(config.heapGrowingPercent);
  // only now: whoever reads this may signal at once, and a signal before its handler kills outright
  process.stdout.write(
    service.url
      ? `upload service listening on ${service.url} (role ${config.role}, data in ${config.dataDir})\n`
      : `upload service running (role ${config.role}, data in ${config.dataDir})\n`,
  );
}

/** past the grace period, how long closing the stores and background work may take */
const HUNG_STOP_MS = 30_000;
/** the same signal again within this time is one request delivered twice, not a second one */
const SAME_SIGNAL_AGAIN_MS = 2_000;

main().catch((error) => {
  // a refusal explains itself: its message, without a stack
  const text = error instanceof ReadModelsAhead ? error.message : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`start-up failed: ${text}\n`);
  process.exit(1);
});
