import type { Logger } from '../../logger';
import { publishOf, type RedisClient as Redis } from '../../lib/redis';
import { applyInvalidation, setInvalidationTransport, type Invalidation } from '../../lib/invalidation';
import { parseControl } from './controlChannel';

/**
 * The in-process caches' invalidations between instances (lib/invalidation.ts), over the control
 * channel (controlChannel.ts, `invalidate`), beside the room events' fabric:
 * - sent with the unguarded PUBLISH, so a failure is seen: the sender logs it, and once its publisher
 *   is back it tells every instance to drop everything (`all`), since some instance may hold what
 *   the lost push would have dropped. Until then the TTL (CACHE_TTL_MS) bounds it;
 * - received from the control channel: applied at once; a `revoke_keys` (the CLI's, or an older
 *   instance's) drops those keys too;
 * - whenever this instance's subscriber reconnects it may have missed some: everything is dropped.
 * Answers the stop function.
 */
/** How long a request's answer waits for its invalidation's publish (docs/reliability.md, Redis Cluster faults). */
const PUBLISH_WAIT_MS = 500;

export function relayInvalidations(pub: Redis, sub: Redis, channel: string, log: Logger): () => void {
  let lost = false;
  const send = async (invalidation: Invalidation): Promise<void> => {
    try {
      // The answer to the request that made the change waits for this: at most PUBLISH_WAIT_MS (a
      // publish queued for a master that died waits for its reconnection); a late one still goes out.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PUBLISH_WAIT_MS} ms`)), PUBLISH_WAIT_MS);
      });
      const published = publishOf(pub)(channel, JSON.stringify({ type: 'invalidate', ...invalidation }));
      published.catch(() => undefined);
      await Promise.race([published, late]).finally(() => clearTimeout(timer));
    } catch (err) {
      if (!lost)
        log.warn(
          { err: (err as Error).message },
          'could not publish a cache invalidation: other instances keep what they cached until CACHE_TTL_MS, or until Redis is back',
        );
      lost = true;
    }
  };
  const catchUp = () => {
    if (!lost) return;
    lost = false;
    void send({ all: true });
  };
  const onMessage = (from: string, text: string) => {
    if (from !== channel) return;
    const message = parseControl(text);
    if (message?.type === 'invalidate') {
      const { type: _type, ...invalidation } = message;
      applyInvalidation(invalidation);
    } else if (message?.type === 'revoke_keys') applyInvalidation({ keys: message.keyIds });
  };
  // Registered after the first connections (startServer awaits them): every 'ready' is a reconnection.
  const onSubReady = () => applyInvalidation({ all: true });
  const removeTransport = setInvalidationTransport(send);
  sub.on('message', onMessage);
  sub.on('ready', onSubReady);
  pub.on('ready', catchUp);
  void sub.subscribe(channel).catch(() => undefined);
  return () => {
    removeTransport();
    sub.off('message', onMessage);
    sub.off('ready', onSubReady);
    pub.off('ready', catchUp);
  };
}
