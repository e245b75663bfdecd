import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Channel authorisation signatures (Pusher's auth-signatures): `auth` is `<app key>:<hex HMAC-SHA256>`
 * of `socket_id:channel_name` (private) or `socket_id:channel_name:channel_data` (presence), keyed
 * with the secret every instance shares: POST /broadcasting/auth signs on one instance, the gateway
 * checks on whichever holds the websocket. The signature binds the grant to that connection and
 * that channel, and (for presence) to the exact channel_data the server wrote.
 */
export function signChannel(secret: string, socketId: string, channel: string, channelData?: string): string {
  const text = channelData === undefined ? `${socketId}:${channel}` : `${socketId}:${channel}:${channelData}`;
  return createHmac('sha256', secret).update(text).digest('hex');
}

export function authString(appKey: string, secret: string, socketId: string, channel: string, channelData?: string): string {
  return `${appKey}:${signChannel(secret, socketId, channel, channelData)}`;
}

/** Whether `auth` (as a client sent it back) is this server's grant for this socket and channel. The key part is not checked (pusher-js does not either). */
export function verifyChannel(secret: string, auth: unknown, socketId: string, channel: string, channelData?: string): boolean {
  if (typeof auth !== 'string' || auth.length > 400) return false;
  const colon = auth.lastIndexOf(':');
  const given = auth.slice(colon + 1);
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  const expected = signChannel(secret, socketId, channel, channelData);
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(expected, 'hex'));
}
