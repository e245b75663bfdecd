import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';
import { errorFields } from './realtime/callbackGuards';
import { startServer, type RunningServer } from './server';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  let server: RunningServer | undefined;
  let stopping = false;
  /** Stop accepting, drain what is in flight (up to SHUTDOWN_TIMEOUT_MS), exit with `code`. */
  const stop = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(code || 1);
    }, config.shutdownTimeoutMs + 5000);
    force.unref();
    try {
      await server?.close();
      logger.info('stopped');
    } catch (err) {
      logger.error(errorFields(err), 'shutdown failed');
    }
    process.exit(code);
  };
  // The last resort (docs/reliability.md, "Untrusted input at the realtime boundaries"): every handler
  // of untrusted input is guarded (src/realtime/callbackGuards.ts), so reaching this is a bug. After an
  // uncaught exception the process's state is undefined (Node's own guidance): it drains what it
  // can and exits 1, and the supervisor starts a clean one. A rejection nobody awaited unwound only
  // its own chain: it is logged and the process keeps serving.
  process.on('uncaughtException', (err, origin) => {
    logger.fatal({ ...errorFields(err), origin }, 'uncaught exception: draining, then exiting for the supervisor to restart this instance');
    void stop('uncaughtException', 1);
  });
  process.on('unhandledRejection', (reason) => logger.error(errorFields(reason), 'unhandled rejection; still serving'));
  try {
    server = await startServer(config, logger);
  } catch (err) {
    logger.fatal({ err: (err as Error).message }, 'start-up failed');
    console.error(`Cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
  logger.info(
    {
      url: server.url,
      port: server.port,
      database: config.databaseUrl ? 'postgres' : 'sqlite',
      redis: config.redisClusterNodes ? 'cluster' : Boolean(config.redisUrl),
      metrics: server.metricsUrl ?? (config.metricsToken ? `${server.url}/metrics` : null),
    },
    'listening',
  );

  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  process.on('SIGINT', () => void stop('SIGINT', 0));
}

void main();
