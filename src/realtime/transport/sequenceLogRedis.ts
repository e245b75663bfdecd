import { publishBlock, type PublishCommand, type RedisClient as Redis } from '../../lib/redis';
import {
  parseEntry,
  REPLAY_LIMIT,
  rollIdsOf,
  SEQUENCE_TTL_SECONDS,
  type LogRead,
  type LoggedEntry,
  type ReplayEntry,
  type SequenceReader,
} from './sequenceLog';

/**
 * The Redis shape of sequenceLog.ts: a room's counter (with, per instance, its last block sent) and log
 * live in two keys whose hash tag is the room's channel (`{dice#/room/abc#}:seq`, `:log`), so that they and the
 * shard channel `dice#/room/abc#` (sharded pub/sub) share one Redis Cluster slot and one script can
 * touch them all. One script per block of emits: it takes the next seq, writes it into each message,
 * publishes them and logs the block, atomically: no other block of the room gets between its seq and
 * its publish, so every instance delivers the room's events in seq order.
 *
 * How the seq gets into messages encoded before it is known: the payloads carry SEQ_PLACEHOLDER as
 * their `seq`, which msgpack (the adapter's encoding) writes as a uint64 (0xcf + 8 bytes); the script
 * overwrites those 9 bytes at the offset found here. Same length, so nothing else in the message moves
 * and the encoding stays the encoder's business (the sharded publisher's too). Encoding per seq in Lua
 * would mean a msgpack encoder in the script and payloads sent to Redis as something else.
 */

/** A number msgpack writes as uint64 (>= 2^32), exact in a double (< 2^53), with bytes no text holds (two 0x00). */
export const SEQ_PLACEHOLDER = 2 ** 52 + 0x5e9_1d0;
const PLACEHOLDER_BYTES = (() => {
  const bytes = Buffer.alloc(9);
  bytes[0] = 0xcf;
  bytes.writeBigUInt64BE(BigInt(SEQ_PLACEHOLDER), 1);
  return bytes;
})();

/** Where the placeholder's 9 bytes start in an encoded message, or -1. The last one: `seq` follows `data`. */
export function placeholderOffset(message: Buffer | string): number {
  if (typeof message === 'string') return -1;
  return message.lastIndexOf(PLACEHOLDER_BYTES);
}

/** The channel a room's keys are tagged with: the adapter's channel of the namespace (also the shard channel). */
export function roomChannel(key: string, namespace: string): string {
  return `${key}#${namespace}#`;
}

export function sequenceKeys(key: string, namespace: string) {
  const tag = `{${roomChannel(key, namespace)}}`;
  return { seq: `${tag}:seq`, log: `${tag}:log`, once: `${tag}:once` };
}

// Numbers leave Lua through string.format('%d'): tostring() of a number above 1e14 rounds it (%.14g).
// Each redis.call costs about as much as the command itself inside a script: the scripts make as few
// as they can (scripts/bench/sequence.ts measures them).
const NEXT_SEQ = `
local function nextSeq()
  -- Never below the clock in microseconds: a counter that lost its last writes (a Redis restarted
  -- without them, a failover to a replica that had not got them) still goes on above every seq handed out.
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local n = redis.call('HGET', KEYS[1], 'n')
  if not n then
    redis.call('HSET', KEYS[1], 'n', string.format('%d', now), 'floor', string.format('%d', now - 1))
    return now
  end
  local seq = math.max(tonumber(n) + 1, now)
  redis.call('HSET', KEYS[1], 'n', string.format('%d', seq))
  return seq
end
`;

/**
 * KEYS: seq (hash: n, floor, and i:<instance> = its last block number), log, once (sorted set: what
 * may be published once, by seq). ARGV: command (publish | spublish), instance, block number, log
 * entry ('' for none), ttl, limit, once ('' for none: a roll's creation is `c:<roll id>`), then
 * (channel, message, placeholder offset or -1) per message. Answers the block's seq, or -1 when this
 * instance had already sent this block (its reply was lost with the connection) or `once` was
 * published already (by any instance: a roll announced again from the outbox, src/outbox).
 */
const SEND_BLOCK = `${NEXT_SEQ}
local field = 'i:' .. ARGV[2]
local last = redis.call('HGET', KEYS[1], field)
if last and tonumber(last) >= tonumber(ARGV[3]) then return -1 end
local once = ARGV[7]
if once ~= '' and redis.call('ZSCORE', KEYS[3], once) then return -1 end
local seq = nextSeq()
local b = {}
local v = seq
for i = 8, 1, -1 do
  b[i] = v % 256
  v = math.floor(v / 256)
end
local bytes = string.char(207, b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8])
for i = 8, #ARGV, 3 do
  local message = ARGV[i + 1]
  local at = tonumber(ARGV[i + 2])
  if at >= 0 then message = string.sub(message, 1, at) .. bytes .. string.sub(message, at + 10) end
  redis.call(ARGV[1], ARGV[i], message)
end
local ttl = tonumber(ARGV[5])
if ARGV[4] ~= '' then
  local s = string.format('%d', seq)
  redis.call('ZADD', KEYS[2], s, s .. ' ' .. ARGV[4])
  -- Trimmed in batches (a 16th of the limit past it), down to the limit: not a trim per event.
  local limit = tonumber(ARGV[6])
  local extra = redis.call('ZCARD', KEYS[2]) - limit
  if extra > math.max(1, math.floor(limit / 16)) then
    local gone = redis.call('ZRANGE', KEYS[2], extra - 1, extra - 1, 'WITHSCORES')
    redis.call('HSET', KEYS[1], 'floor', gone[2])
    redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
  end
end
if redis.call('HSET', KEYS[1], field, ARGV[3]) == 1 and redis.call('HLEN', KEYS[1]) > 102 then
  -- One field per instance that ever sent to the room: a room alive across many deploys forgets them
  -- (only a block sent again by an instance whose first attempt had in fact run could then repeat).
  for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
    if name ~= 'n' and name ~= 'floor' and name ~= field then redis.call('HDEL', KEYS[1], name) end
  end
end
if once ~= '' then
  redis.call('ZADD', KEYS[3], seq, once)
  -- As many as the log holds, trimmed in batches like it.
  local limit = tonumber(ARGV[6])
  local extra = redis.call('ZCARD', KEYS[3]) - limit
  if extra > math.max(1, math.floor(limit / 16)) then redis.call('ZREMRANGEBYRANK', KEYS[3], 0, extra - 1) end
  redis.call('EXPIRE', KEYS[3], ttl)
end
-- Both keys live as long as each other: a counter whose log expired alone would claim to cover it.
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
return seq
`;

/** KEYS: seq, log. ARGV: ttl. Answers the counter, starting it if missing. */
const HEAD = `
local n = redis.call('HGET', KEYS[1], 'n')
if not n then
  local t = redis.call('TIME')
  n = string.format('%d', tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('HSET', KEYS[1], 'n', n, 'floor', n)
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[1]))
return n
`;

/**
 * KEYS: seq, log. ARGV: after, upTo. Answers {floor, n, entries...} (floor and n false when there is no
 * counter), the entries `seq json` with after < seq <= upTo.
 */
const READ = `
local floor = redis.call('HGET', KEYS[1], 'floor')
local n = redis.call('HGET', KEYS[1], 'n')
local out = {floor, n}
for _, entry in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], ARGV[2])) do out[#out + 1] = entry end
return out
`;

type ScriptClient = Redis & {
  diceSendBlock(seq: string, log: string, once: string, ...args: Array<string | Buffer | number>): Promise<number>;
  diceSeqHead(seq: string, log: string, ttl: number): Promise<string>;
  diceSeqRead(seq: string, log: string, after: string, upTo: string): Promise<Array<string | null>>;
};

/** Define the scripts on `redis` once (ioredis sends EVALSHA, and the script again after NOSCRIPT: a restarted Redis). */
function scripts(redis: Redis): ScriptClient {
  const client = redis as ScriptClient;
  if (typeof client.diceSendBlock !== 'function') {
    redis.defineCommand('diceSendBlock', { numberOfKeys: 3, lua: SEND_BLOCK });
    redis.defineCommand('diceSeqHead', { numberOfKeys: 2, lua: HEAD });
    redis.defineCommand('diceSeqRead', { numberOfKeys: 2, lua: READ });
  }
  return client;
}

/** Who sent a block, for recognising it when it is sent again: this process, and its running number. */
export interface BlockId {
  instance: string;
  n: number;
}

/**
 * The one place a block of emits is sent: `entries` (channel, encoded message) of `namespace`, with
 * the command the adapter listens to (PUBLISH for the classic adapter, SPUBLISH for the sharded one).
 * Answers the seq, or -1 when the block had already been sent (0: a block with nothing to number).
 */
export function sendBlock(
  redis: Redis,
  key: string,
  command: PublishCommand,
  namespace: string,
  entries: ReadonlyArray<readonly [string, Buffer | string]>,
  id: BlockId,
  replay?: ReplayEntry,
  limit = REPLAY_LIMIT,
): Promise<number> {
  const offsets = entries.map(([, message]) => placeholderOffset(message));
  if (!replay && offsets.every((at) => at < 0)) {
    // Nothing to number (a kick, a relayed Pusher client event, a /user event): a plain MULTI, in its
    // place on the connection among the scripts (on a cluster, on the node of the room's slot, as the
    // script: lib/redis.ts publishBlock). Not recognised if sent again: a kick or a relay twice is harmless.
    return publishBlock(redis, entries, command).then(() => 0);
  }
  const keys = sequenceKeys(key, namespace);
  // A roll's creation is published once, whoever publishes it (its instance, or a sweep of the outbox).
  const once = replay?.event === 'RollCreateEvent' ? `c:${replay.rollId}` : '';
  const args: Array<string | Buffer | number> = [command, id.instance, id.n, replay ? JSON.stringify(replay) : '', SEQUENCE_TTL_SECONDS, limit, once];
  entries.forEach(([channel, message], i) => args.push(channel, message, offsets[i]!));
  return scripts(redis).diceSendBlock(keys.seq, keys.log, keys.once, ...args);
}

/** Reading counters and logs (the welcome's `head`, the replay's `read`). */
export class RedisSequence implements SequenceReader {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  async head(namespace: string): Promise<number> {
    const keys = sequenceKeys(this.key, namespace);
    return Number(await scripts(this.redis).diceSeqHead(keys.seq, keys.log, SEQUENCE_TTL_SECONDS));
  }

  async read(namespace: string, after: number, upTo: number): Promise<LogRead> {
    const keys = sequenceKeys(this.key, namespace);
    const [floor, n, ...members] = await scripts(this.redis).diceSeqRead(keys.seq, keys.log, String(after), String(upTo));
    if (floor === null || floor === undefined || n === null || n === undefined) return null;
    if (after < Number(floor) || after > Number(n)) return null;
    const entries: LoggedEntry[] = [];
    for (const member of members) {
      const space = member!.indexOf(' ');
      const entry = parseEntry(member!.slice(space + 1));
      if (entry) entries.push({ seq: Number(member!.slice(0, space)), entry });
    }
    return entries;
  }

  async loggedRollIds(namespace: string, after: number): Promise<Set<number>> {
    const members = await this.redis.zrangebyscore(sequenceKeys(this.key, namespace).log, `(${after}`, '+inf');
    return rollIdsOf(
      members.flatMap((member) => {
        const entry = parseEntry(member.slice(member.indexOf(' ') + 1));
        return entry ? [{ seq: 0, entry }] : [];
      }),
    );
  }
}

/**
 * KEYS: seq. The log covers nothing up to now: the counter takes a number for the events dropped and
 * the floor moves up to it, so a client whose last seq is the room's latest is not covered either (it
 * missed the dropped events, which never got numbers).
 */
const FORGET = `
if redis.call('HEXISTS', KEYS[1], 'n') == 1 then
  local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
  redis.call('HSET', KEYS[1], 'floor', string.format('%d', n))
end
return 1
`;

/** Events of `namespace` were dropped without being numbered: a replay from before now must not pretend to be complete. */
export function forgetLog(redis: Redis, key: string, namespace: string): Promise<unknown> {
  const client = redis as Redis & { diceSeqForget?: (seq: string) => Promise<number> };
  if (typeof client.diceSeqForget !== 'function') redis.defineCommand('diceSeqForget', { numberOfKeys: 1, lua: FORGET });
  return client.diceSeqForget!(sequenceKeys(key, namespace).seq);
}
