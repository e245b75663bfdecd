import test from 'ava';
import {
  generatePasscode,
  generateSlug,
  passcodesEqual,
  PASSCODE_LENGTH,
  PASSCODE_PATTERN,
  SLUG_LENGTH,
  SLUG_PATTERN,
  UNAMBIGUOUS_ALPHABET,
} from '../../src/rooms/codes';

test('slugs are long, URL-safe, match the route and namespace patterns, and do not repeat', (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 5000; i++) {
    const slug = generateSlug();
    t.is(slug.length, SLUG_LENGTH);
    t.regex(slug, SLUG_PATTERN);
    t.regex(slug, /^[\w-]+$/, 'Socket.IO namespace pattern of docs/architecture.md');
    t.is(encodeURIComponent(slug), slug);
    seen.add(slug);
  }
  t.is(seen.size, 5000);
});

test('passcodes have at least 6 unambiguous URL-safe characters', (t) => {
  t.true(PASSCODE_LENGTH >= 6);
  for (let i = 0; i < 2000; i++) {
    const code = generatePasscode();
    t.is(code.length, PASSCODE_LENGTH);
    t.regex(code, PASSCODE_PATTERN, 'a generated passcode is also one an owner could choose');
    t.is(encodeURIComponent(code), code);
    for (const ch of code) t.true(UNAMBIGUOUS_ALPHABET.includes(ch));
    t.notRegex(code, /[01oli]/);
  }
});

test('every letter of the alphabet turns up (uniform draw, not a fixed subset)', (t) => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 3000; i++) for (const ch of generateSlug()) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  t.is(counts.size, UNAMBIGUOUS_ALPHABET.length);
});

test('passcodesEqual matches only the exact passcode', (t) => {
  t.true(passcodesEqual('abc123', 'abc123'));
  t.false(passcodesEqual('abc123', 'abc124'));
  t.false(passcodesEqual('abc123', 'ABC123'));
  t.false(passcodesEqual('abc123', 'abc1234'));
  t.false(passcodesEqual('abc123', ''));
  t.false(passcodesEqual('abc123', undefined));
  t.false(passcodesEqual(null, 'abc123'));
  t.false(passcodesEqual(null, null), 'a room without a passcode is never opened by one');
  t.false(passcodesEqual('', ''));
});
