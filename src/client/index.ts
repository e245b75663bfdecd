/**
 * The typed client of the dice service: REST (every endpoint) and the realtime rooms.
 *
 *   const client = new DiceClient({ baseUrl: 'https://dice.example', apiKey });
 *   const room = await client.createRoom({ name: 'Friday game' });
 *   const socket = client.connectRoom(room.slug);
 *   socket.on('RollCreateEvent', ({ data }) => console.log(data.equation, data.total_value));
 *   await client.createRoll({ equation: '4d6kh3', theme: 'standard', room: room.slug });
 */
import { RestClient, type DiceClientOptions } from './rest';
import { connectRoom, connectUser, type RoomConnectOptions, type RoomSocket, type UserSocket } from './realtime';
import type { ManagerOptions, SocketOptions } from 'socket.io-client';

export class DiceClient extends RestClient {
  constructor(options: DiceClientOptions) {
    super(options);
  }

  /** The same server with another key. */
  withKey(apiKey: string | null): DiceClient {
    return new DiceClient({ baseUrl: this.baseUrl, apiKey });
  }

  /** A guest user's client: creates the guest and answers a client holding its key. */
  async asNewGuest(): Promise<DiceClient> {
    return this.withKey(await this.createGuest());
  }

  private requireKey(): string {
    if (!this.apiKey) throw new Error('This client has no API key: create one with createGuest() or pass apiKey.');
    return this.apiKey;
  }

  /** Subscribe to a room (you must be its participant, or its owner). */
  connectRoom(slug: string, options: RoomConnectOptions = {}): RoomSocket {
    return connectRoom(this.baseUrl || globalThis.location?.origin || '', this.requireKey(), slug, options);
  }

  /** Subscribe to your own dice box events. */
  connectUser(options: Partial<ManagerOptions & SocketOptions> = {}): UserSocket {
    return connectUser(this.baseUrl || globalThis.location?.origin || '', this.requireKey(), options);
  }
}

export { ApiError, RestClient, API_PREFIX, type DiceClientOptions, type RequestOptions } from './rest';
export { connectRoom, connectUser, lastSeq, type RoomConnectOptions, type RoomSocket, type UserSocket } from './realtime';
export * from './events';
export { loadingCondition, loadingSoundPlays, type LoadingCondition, type LoadingOperator } from './loadingSound';
export * from './types';
