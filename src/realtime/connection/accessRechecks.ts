import type { Server, Socket } from 'socket.io';
import type { Logger } from '../../logger';
import { liveSeats } from '../../rooms/store/read';
import { liveKeyIds } from '../../users/store';
import { ROOM_NAMESPACE, RoomEvents, USER_NAMESPACE } from '../names';
import { socketData } from './handshake';
import { unheld } from './holdLiveEvents';
import { namespacesOf } from '../socketioInternals';

/** The other listeners guarded alongside the sockets (the Pusher gateway's subscriptions). */
export interface GuardedListeners {
  dropKeys(keyIds: readonly number[]): number;
  revalidate(): Promise<number>;
}

/**
 * Access is checked where sockets enter (the handshake) and again here, on the sockets already in:
 * a revoked key, a participant removed, a room made private or deleted must stop reaching them even
 * when the eviction itself was lost (Redis away when it was published, a CLI without Redis). Three
 * ways, from fastest to surest:
 * - `dropKeys`: a revocation announced (bus event, or the control channel from the CLI);
 * - `resync`: this instance may have missed events (its Redis subscriber reconnected, or another
 *   instance could not publish): the room sockets concerned are told `ReplayRequiredEvent` and their
 *   connection is closed, so the client reconnects with `since`; the handshake checks access afresh
 *   and the replay brings what was missed;
 * - `revalidate`: every REALTIME_REVALIDATE_MS, and after each resync, two queries for all the
 *   sockets of the instance (live keys; participants of live rooms) and every socket that lost
 *   access is disconnected (`io server disconnect`, as a kick).
 */
export class AccessGuard {
  private running: Promise<number> | null = null;
  private again = false;

  constructor(
    private readonly io: Server,
    private readonly logger: Logger,
    private readonly others: GuardedListeners | null = null,
  ) {}

  /** The room and user sockets of this instance (sockets still in their handshake are not in `nsp.sockets`). */
  private sockets(): Socket[] {
    const out: Socket[] = [];
    for (const [name, nsp] of namespacesOf(this.io)) {
      if (name !== USER_NAMESPACE && !ROOM_NAMESPACE.test(name)) continue;
      for (const socket of nsp.sockets.values()) out.push(socket);
    }
    return out;
  }

  /** Disconnect this instance's sockets opened with one of these keys; answers how many. */
  dropKeys(keyIds: readonly number[]): number {
    const revoked = new Set(keyIds);
    let n = this.others?.dropKeys(keyIds) ?? 0;
    for (const socket of this.sockets()) {
      if (!revoked.has(socketData(socket).keyId)) continue;
      socket.disconnect();
      n++;
    }
    if (n) this.logger.info({ sockets: n }, 'dropped the sockets of revoked keys');
    return n;
  }

  /**
   * Tell the room sockets of `namespaces` (all of them when null) that connected before `before`
   * that they may have missed events, and close their connection: socket.io-client reconnects by
   * itself after a closed transport, with `since` when it keeps it (src/client/realtime.ts does).
   * Synchronous: a socket resynced here hears nothing more before it reconnects (it leaves its
   * channels at once, and the closing connection takes no new packets).
   */
  resync(reason: 'redis_reconnected' | 'events_lost', namespaces: readonly string[] | null = null, before = Infinity): number {
    const wanted = namespaces ? new Set(namespaces) : null;
    let n = 0;
    for (const [name, nsp] of namespacesOf(this.io)) {
      if (!ROOM_NAMESPACE.test(name) || (wanted && !wanted.has(name))) continue;
      for (const socket of [...nsp.sockets.values()]) {
        if (socketData(socket).connectedAt >= before) continue;
        for (const channel of [...socket.rooms]) if (channel !== socket.id) void socket.leave(channel);
        unheld(socket, () => socket.emit(RoomEvents.ReplayRequired, { data: { reason } }));
        socket.conn.close();
        n++;
      }
    }
    if (n) this.logger.info({ sockets: n, reason }, 'room sockets told to reconnect and replay');
    return n;
  }

  /**
   * Check every socket of this instance against the database; disconnect those that lost access.
   * Runs one at a time: a call while one runs starts one more pass after it. Answers how many went.
   */
  revalidate(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = async (): Promise<number> => {
      let dropped = 0;
      do {
        this.again = false;
        dropped += await this.pass();
      } while (this.again);
      return dropped;
    };
    this.running = run().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<number> {
    const others = this.others ? await this.others.revalidate() : 0;
    return others + (await this.socketsPass());
  }

  private async socketsPass(): Promise<number> {
    const sockets = this.sockets();
    if (!sockets.length) return 0;
    const liveKeys = await liveKeyIds(sockets.map((s) => socketData(s).keyId));
    const seats = await liveSeats(sockets.flatMap((s) => (socketData(s).room ? [{ roomId: socketData(s).room!.id, userId: socketData(s).user.id }] : [])));
    let dropped = 0;
    for (const socket of sockets) {
      const { keyId, room, user } = socketData(socket);
      const allowed = liveKeys.has(keyId) && (!room || seats.has(`${room.id} ${user.id}`));
      if (allowed || !socket.connected) continue;
      socket.disconnect();
      dropped++;
    }
    if (dropped) this.logger.info({ sockets: dropped, checked: sockets.length }, 'dropped sockets that lost access');
    return dropped;
  }

  /** Revalidate every `intervalMs`; answers the stop function. */
  start(intervalMs: number): () => void {
    const timer = setInterval(() => {
      this.revalidate().catch((err: Error) => this.logger.warn({ err: err.message }, 'socket re-validation failed; trying again at the next interval'));
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
