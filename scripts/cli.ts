// Operators' CLI: npm run cli -- <command> [args]
//   user:create USERNAME [NAME]   create a registered user and print a first API key
//   user:password USERNAME        set a registered user's web password, read from stdin (ends their sessions)
//   key:create USERNAME [LABEL]   issue another key for a user (printed once; only its hash is kept)
//   key:list USERNAME             list a user's keys by prefix (never the keys themselves)
//   key:revoke KEY_PREFIX|KEY     revoke the matching live key(s) and close the sockets opened with them
//   theme:public THEME_ID         make a theme everyone's: rollable by every user, in every dice box
//   theme:private THEME_ID        undo theme:public (the built-in standard theme stays public)
import { ConfigError, loadConfig } from '../src/config';
import { openDatabase } from '../src/db';
import { migrate } from '../src/db/migrate';
import { createLogger } from '../src/logger';
import { issueApiKey, revokeApiKeyIds } from '../src/users/apiKeys';
import { publishControlOnce } from '../src/realtime/transport/controlChannel';
import { redisTargetOf } from '../src/lib/redis';
import type { Config } from '../src/config';
import { createRegisteredUser } from '../src/users/create';
import { findUserByUsername, listApiKeys, type UserRecord } from '../src/users/store';
import { AppError } from '../src/errors';
import { makeThemePrivate, makeThemePublic } from '../src/themes/publicThemes';
import { setPasswordByOperator } from '../src/accounts/setPassword';

/** The first line of stdin (a password piped in, or typed and ended with Enter). */
async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n') || text.length > 4096) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

const USAGE = `Usage: npm run cli -- <command> [args]
  user:create USERNAME [NAME]   create a registered user and print a first API key
  user:password USERNAME        set a user's web password, read from the first line of stdin
                                (never an argument: arguments show in the process list)
  key:create USERNAME [LABEL]   issue another key for a user
  key:list USERNAME             list a user's keys (prefix, label, state)
  key:revoke KEY_PREFIX|KEY     revoke the matching live key(s) and close their sockets
  theme:public THEME_ID         make a theme everyone's: rollable by every user, in every dice box
  theme:private THEME_ID        undo theme:public (the built-in standard theme stays public)`;

class UsageError extends Error {}

async function findUser(username: string | undefined): Promise<UserRecord> {
  if (!username) throw new UsageError('A USERNAME is required.');
  const user = await findUserByUsername(username);
  if (!user) throw new UsageError(`There is no user named "${username}".`);
  return user;
}

async function run(config: Readonly<Config>, args: string[]): Promise<string> {
  const [command, a, b] = args;
  switch (command) {
    case 'user:create': {
      if (!a || !/^[\w.-]{1,64}$/.test(a)) throw new UsageError('USERNAME must be 1 to 64 letters, digits, dots, dashes or underscores.');
      const user = await createRegisteredUser(a, b ?? a);
      const { key } = await issueApiKey(user, 'cli');
      return `Created user ${user.username} (${user.uuid}).\nAPI key (shown once): ${key}`;
    }
    case 'user:password': {
      const user = await findUser(a);
      const keyIds = await setPasswordByOperator(user, await firstLineOfStdin());
      // The sessions' page keys were revoked with them: the instances drop them as for key:revoke.
      const redis = keyIds.length ? redisTargetOf(config) : null;
      if (redis) await publishControlOnce(redis, config.redisPrefix, { type: 'invalidate', keys: keyIds }, { type: 'revoke_keys', keyIds });
      return `The password of ${user.username} is set; every browser signed in as them was signed out.`;
    }
    case 'key:create': {
      // api_keys.name holds 255 characters; a label is for telling keys apart, so 64 is plenty.
      if (b !== undefined && (b.trim() === '' || b.length > 64)) throw new UsageError('LABEL must be 1 to 64 characters.');
      const user = await findUser(a);
      const { key } = await issueApiKey(user, b ?? 'cli');
      return `API key for ${user.username} (shown once): ${key}`;
    }
    case 'key:list': {
      const user = await findUser(a);
      const keys = await listApiKeys(user.id);
      if (!keys.length) return `${user.username} has no keys.`;
      return keys
        .map((k) => `${k.prefix}…  ${k.name.padEnd(12)} created ${k.createdAt.toISOString()}  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'live'}`)
        .join('\n');
    }
    case 'key:revoke': {
      if (!a) throw new UsageError('A KEY_PREFIX (as key:list shows it) or a whole key is required.');
      const keyIds = await revokeApiKeyIds(a);
      if (!keyIds.length) throw new UsageError(`No live key matches "${a}".`);
      // The CLI has no cache of its own, but every instance may hold these keys in its key cache, and
      // their open sockets: both are told through Redis, the cache first (lib/invalidation.ts), so
      // that a socket dropped for the revocation cannot reconnect on a cached key. A server without
      // Redis reads revocations from the database a few times a second (users/revocationWatch.ts); one
      // with Redis that this CLI could not reach finds out at its next re-validation (sockets) and
      // when its cached entries expire.
      const redis = redisTargetOf(config);
      const told = redis ? await publishControlOnce(redis, config.redisPrefix, { type: 'invalidate', keys: keyIds }, { type: 'revoke_keys', keyIds }) : false;
      const sockets = told
        ? 'Their open sockets are being dropped on every instance.'
        : redis
          ? `Redis could not be reached to tell the instances now: their open sockets will be dropped within REALTIME_REVALIDATE_MS (${config.realtimeRevalidateMs} ms), and a server that cached the keys refuses them within CACHE_TTL_MS (${config.cacheTtlMs} ms).`
          : 'A server running without Redis on this database refuses them and drops their open sockets within 1 s.';
      return `Revoked ${keyIds.length} key(s). ${sockets}`;
    }
    case 'theme:public':
    case 'theme:private': {
      if (!a) throw new UsageError('A THEME_ID is required.');
      const changed = command === 'theme:public' ? await makeThemePublic(a) : await makeThemePrivate(a);
      const done =
        command === 'theme:public'
          ? `The theme "${a}" is public: every user can roll with it, and it is in every dice box.`
          : `The theme "${a}" is no longer public.`;
      if (!changed) return command === 'theme:public' ? `The theme "${a}" was already public.` : `The theme "${a}" was not public.`;
      // Every instance caches who may roll with what: told through Redis, else they see it when their
      // cached entries expire (CACHE_TTL_MS).
      const redis = redisTargetOf(config);
      const told = redis ? await publishControlOnce(redis, config.redisPrefix, { type: 'invalidate', allDiceBoxes: true }) : false;
      return `${done} ${told ? 'Every instance knows it now.' : `Running servers take it up within CACHE_TTL_MS (${config.cacheTtlMs} ms).`}`;
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}".` : 'No command given.');
  }
}

let exitCode = 0;
try {
  const config = loadConfig();
  const database = await openDatabase(config);
  try {
    await migrate(database, createLogger('warn'));
    console.log(await run(config, process.argv.slice(2)));
  } finally {
    await database.close();
  }
} catch (err) {
  if (err instanceof UsageError) console.error(`${err.message}\n\n${USAGE}`);
  else if (err instanceof ConfigError || err instanceof AppError) console.error(err.message);
  else console.error(`Failed: ${(err as Error).message}`);
  exitCode = 1;
}
process.exit(exitCode);
