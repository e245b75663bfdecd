/**
 * A request's URL as logs may keep it: the values of query parameters that are secrets are replaced
 * by `[redacted]`. Invites carry a room's passcode (`/room/{slug}?passcode=`), dddice's overlay
 * address an API key (`?key=`), and integrations a secret or a token: a log is read by more people,
 * for longer, than the room. Names are compared decoded and case-blind, so `?%70asscode=` (which the
 * pages and Express read as `passcode`) is redacted too.
 */
const SECRET_NAMES = new Set(['passcode', 'key', 'api_key', 'apikey', 'secret', 'token', 'access_token']);

/** A parameter's name as the query parsers read it: decoded, case-blind, without a `[...]` suffix (`key[]`). */
function decoded(name: string): string {
  let out = name.replace(/\+/g, ' ');
  try {
    out = decodeURIComponent(out);
  } catch {
    // A malformed escape: compared as written.
  }
  return out.split('[')[0]!.trim().toLowerCase();
}

export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1);
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    // A value that is itself an address with a passcode (an invite pasted into `/?room=`) goes too.
    return SECRET_NAMES.has(decoded(name)) || (eq >= 0 && /passcode|key=/.test(decoded(part.slice(eq + 1)))) ? `${name}=[redacted]` : part;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}
