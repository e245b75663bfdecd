import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';
import { startServer } from './server';

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
  let server;
  try {
    server = await startServer(config, logger);
  } catch (err) {
    logger.fatal({ err: (err as Error).message }, 'start-up failed');
    console.error(`Cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
  logger.info({ url: server.url, port: server.port, database: config.databaseUrl ? 'postgres' : 'sqlite', redis: config.redisClusterNodes ? 'cluster' : Boolean(config.redisUrl), metrics: server.metricsUrl ?? (config.metricsToken ? `${server.url}/metrics` : null) }, 'listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 5000);
    force.unref();
    await server.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
}

void main();
