import test from 'ava';
import { useServer } from '../helpers/server';

/**
 * FRAME_ANCESTORS: an operator who shows the board inside their own site names it; the board page's
 * policy then lets this server and those sites frame it, and no other (docs/operations.md).
 */
const ctx = useServer(test, { FRAME_ANCESTORS: 'https://vtt.example.com, https://*.example.org' });

test('the board page may be framed by the sites FRAME_ANCESTORS names, besides this server', async (t) => {
  const board = await fetch(`${ctx.server.url}/board/abc123`);
  t.is(board.status, 200);
  t.regex(board.headers.get('content-security-policy') ?? '', /; frame-ancestors 'self' https:\/\/vtt\.example\.com https:\/\/\*\.example\.org$/);
  // X-Frame-Options cannot name other sites: it would forbid what the operator allowed, so it is not sent.
  t.is(board.headers.get('x-frame-options'), null);
  const overlay = await fetch(`${ctx.server.url}/board/abc123?overlay=1`);
  t.notRegex(overlay.headers.get('content-security-policy') ?? '', /frame-ancestors/);
});
