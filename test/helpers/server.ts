import type { ExecutionContext } from 'ava';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/logger';
import { currentAppContext, withinAppContext, type AppContext } from '../../src/lib/appContext';
import { startServer, type RunningServer } from '../../src/server';
import { Api, newGuest } from './http';
import { createTestDatabase, type TestDatabase } from './env';

export interface TestServer extends RunningServer {
  /** An anonymous API client for this server. */
  api: Api;
  database: TestDatabase;
  /** A fresh guest user: its key and an API client using it. */
  newUser(): Promise<{ key: string; api: Api; user: { uuid: string; username: string; name: string } }>;
  /** Run `fn` with this server's database, caches and listeners (lib/appContext.ts): what a test reads or changes directly. */
  within<T>(fn: () => T): T;
  stop(): Promise<void>;
}

/**
 * Start the real server (HTTP + Socket.IO) on an ephemeral port with a database of its own, in the
 * test file's app context (lib/appContext.ts: the process's, or the file's own in a group,
 * test/helpers/testGroup.ts), or in `context`.
 */
export async function startTestServer(env: Record<string, string> = {}, context: AppContext = currentAppContext()): Promise<TestServer> {
  const database = await createTestDatabase();
  const config: Config = {
    ...loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: database.dataDir,
      DATABASE_URL: database.databaseUrl ?? '',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      GUESTS_PER_HOUR: '100000',
      RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_FAILURES_PER_MINUTE: '1000000',
      SHUTDOWN_TIMEOUT_MS: '2000',
      ...env,
    }),
  };
  const server = await startServer(Object.freeze(config), createLogger(config.logLevel), context);
  const api = new Api(server.url);
  let stopped = false;
  return {
    ...server,
    api,
    database,
    newUser: () => newGuest(api),
    within: (fn) => withinAppContext(server.context, fn),
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await database.drop();
    },
  };
}

/** Common ava wiring: `const ctx = useServer(test)` then `ctx.server` inside tests. */
export function useServer(
  test: { before: (fn: (t: ExecutionContext) => Promise<void>) => void; after: { always: (fn: () => Promise<void>) => void } },
  env: Record<string, string> = {},
) {
  const holder = {} as { server: TestServer };
  test.before(async () => {
    holder.server = await startTestServer(env);
  });
  test.after.always(async () => {
    await holder.server?.stop();
  });
  return holder;
}
