import type { Duplex } from 'node:stream';

/**
 * What an HTTP upgrade asks for, read from the request target as the client wrote it. No `new URL`
 * (it throws on a target such as `//`) and no unguarded `decodeURIComponent` (it throws on `%C0%80`):
 * every target has an answer, and only a key that cannot be decoded is refused here.
 */
export type UpgradeTarget =
  /** Not under /app/: Socket.IO's (engine.io answers or ends it). */
  | { kind: 'other' }
  /** Under /app/ but not readable: an HTTP 400. */
  | { kind: 'bad'; reason: string }
  | { kind: 'app'; key: string; params: URLSearchParams };

/** A key is at most this long once encoded (the stock SDK's is 64 characters). */
const MAX_KEY = 200;
const APP_PATH = new RegExp(`^/app/([^/]{1,${MAX_KEY}})$`);
/** An absolute-form target (`GET http://host/app/key HTTP/1.1`): scheme and authority go, the path stays. */
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

export function readUpgradeTarget(rawTarget: string | undefined): UpgradeTarget {
  const target = (rawTarget ?? '/').replace(ABSOLUTE, '');
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  const match = APP_PATH.exec(path);
  // Not one key under /app/: engine.io ends it as it ends any path it does not serve.
  if (!match) return { kind: 'other' };
  let key: string;
  try {
    key = decodeURIComponent(match[1]!);
  } catch {
    return { kind: 'bad', reason: 'The app key in the path is not valid percent-encoded UTF-8.' };
  }
  const query = end !== -1 && target[end] === '?' ? target.slice(end + 1).split('#')[0]! : '';
  // URLSearchParams never throws: a malformed escape stays as written.
  return { kind: 'app', key, params: new URLSearchParams(query) };
}

/**
 * Refuse an upgrade before any websocket exists: an HTTP 400 with a short reason, written to the raw
 * socket, which is then destroyed (what `ws` itself does with a handshake it refuses).
 */
export function refuseUpgrade(socket: Duplex, reason: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = `${reason}\n`;
  socket.once('finish', () => socket.destroy());
  socket.once('error', () => socket.destroy());
  socket.end(
    'HTTP/1.1 400 Bad Request\r\n' +
      'Connection: close\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      '\r\n' +
      body,
  );
}
