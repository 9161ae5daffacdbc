import { ConfigError, parseConfig } from './config.js';
import { createLogger } from './log.js';
import { startService } from './service.js';

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
  process.stdout.write(
    service.url
      ? `upload service listening on ${service.url} (role ${config.role}, data in ${config.dataDir})\n`
      : `upload service running (role ${config.role}, data in ${config.dataDir})\n`,
  );
  // a role that serves no HTTP has only background timers, which do not keep a process alive
  const keepAlive = setInterval(() => {}, 60_000);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    clearInterval(keepAlive);
    await service.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
