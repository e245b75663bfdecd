import { isCluster, masterOf, type RedisClient as Redis } from '../../lib/redis';
import type { Logger } from '../../logger';

/** REDIS_PUBSUB as configured. */
export type PubSubSetting = 'auto' | 'sharded' | 'classic';
/**
 * How Socket.IO events travel between instances:
 * - `sharded`: the sharded adapter of `@socket.io/redis-adapter` (Redis 7 SSUBSCRIBE/SPUBLISH), one
 *   shard channel per namespace; Redis's cost per event does not depend on how many rooms are live;
 * - `classic`: the classic adapter (a PSUBSCRIBE per namespace per instance), which Redis matches
 *   against every PUBLISH: the cost per event grows with the live rooms of all instances.
 */
export type PubSubMode = 'sharded' | 'classic';

export interface PubSubChoice {
  mode: PubSubMode;
  /** The one warning to log at start-up (the classic fabric's ceiling), or null. */
  warning: string | null;
}

/** Sharded pub/sub (SSUBSCRIBE, SPUBLISH) came with Redis 7.0. */
const SHARDED_SINCE_MAJOR = 7;

/**
 * The ceiling of the classic fabric, measured on this project's reference machine (docs/realtime.md,
 * The pub/sub fabric): two instances, 3,000 live rooms of one socket each.
 */
const CLASSIC_CEILING =
  'the classic Socket.IO adapter holds one pattern subscription per live room per instance, and Redis matches every PUBLISH against all of them: ' +
  'measured x136 Redis CPU per publish at 3,000 live rooms (6.6 µs -> 899 µs), about 270 rolls/s for one Redis whatever the number of instances. ' +
  'Redis 7 or newer removes this ceiling (sharded pub/sub).';

/** `redis_version` of an `INFO server` answer, or null when it has none. */
export function redisVersionFrom(info: string): string | null {
  const match = /^redis_version:([^\r\n]+)/m.exec(info);
  return match ? match[1]!.trim() : null;
}

function majorOf(version: string | null): number | null {
  const match = version === null ? null : /^(\d+)\./.exec(version);
  return match ? Number(match[1]) : null;
}

/**
 * The fabric for `setting` on a server of `version` (null: unknown, e.g. INFO is disabled). Throws
 * when REDIS_PUBSUB=sharded asks for what the server cannot do: better a clear start-up error than
 * instances that never hear each other.
 */
export function choosePubSub(setting: PubSubSetting, version: string | null): PubSubChoice {
  const major = majorOf(version);
  const canShard = major !== null && major >= SHARDED_SINCE_MAJOR;
  const seen = version === null ? 'a Redis whose version could not be read (INFO server)' : `Redis ${version}`;
  if (setting === 'sharded') {
    if (!canShard)
      throw new Error(
        `REDIS_PUBSUB=sharded needs Redis 7 or newer (sharded pub/sub), but REDIS_URL points to ${seen}. Upgrade Redis, or set REDIS_PUBSUB=auto or classic.`,
      );
    return { mode: 'sharded', warning: null };
  }
  if (setting === 'classic') return { mode: 'classic', warning: `REDIS_PUBSUB=classic: ${CLASSIC_CEILING}` };
  if (canShard) return { mode: 'sharded', warning: null };
  return { mode: 'classic', warning: `${seen} has no sharded pub/sub, so this instance runs on the classic adapter: ${CLASSIC_CEILING}` };
}

/**
 * Instances of this deployment already running on the other fabric, seen by the channel every
 * instance subscribes for the root namespace `/`: the classic adapter's `${key}-request#/#`, the
 * sharded adapter's `${key}#/#`. They and this one would not hear each other's room events.
 */
async function peersOnOtherFabric(client: Redis, mode: PubSubMode, key: string, canShard: boolean): Promise<number> {
  if (mode === 'sharded') {
    // A classic SUBSCRIBE is listed only by the node it was made on: on a cluster, ask every master.
    const nodes = isCluster(client) ? client.nodes('master') : [client];
    const counts = await Promise.all(nodes.map(async (node) => ((await node.call('PUBSUB', 'NUMSUB', `${key}-request#/#`)) as [string, number])[1]));
    return counts.reduce((sum, n) => sum + Number(n), 0);
  }
  if (!canShard) return 0;
  // A shard channel's subscribers are known to the node serving its slot.
  const channel = `${key}#/#`;
  return Number(((await masterOf(client, channel).call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number])[1]);
}

/**
 * Ask the server its version, choose, and log the warning once. `key` is the adapter's channel
 * prefix: instances of the deployment found on the other fabric are warned about too.
 */
export async function detectPubSub(client: Redis, setting: PubSubSetting, logger: Logger, key: string): Promise<PubSubMode> {
  let version: string | null = null;
  try {
    version = redisVersionFrom(await client.info('server'));
  } catch (err) {
    // Some hosted Redis services refuse INFO: decide without a version.
    logger.debug({ err: (err as Error).message }, 'INFO server failed');
  }
  const choice = choosePubSub(setting, version);
  if (choice.warning) logger.warn({ redisVersion: version, pubsub: choice.mode }, choice.warning);
  else logger.info({ redisVersion: version, pubsub: choice.mode }, 'realtime fabric: Redis sharded pub/sub');
  const peers = await peersOnOtherFabric(client, choice.mode, key, (majorOf(version) ?? 0) >= SHARDED_SINCE_MAJOR).catch(() => 0);
  if (peers > 0) {
    const other = choice.mode === 'sharded' ? 'classic' : 'sharded';
    logger.warn(
      { pubsub: choice.mode, peers },
      `${peers} instance(s) of this deployment run on ${other} pub/sub: they and this one (${choice.mode}) do not hear each other's room events. Run every instance with the same REDIS_PUBSUB (docs/realtime.md, The pub/sub fabric).`,
    );
  }
  return choice.mode;
}
