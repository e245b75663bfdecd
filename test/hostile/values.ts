import type { Rng } from './prng';

/**
 * Hostile values: what a careless or malicious client puts where a field belongs, in every family:
 * wrong types, huge and deep JSON, unicode, negative and huge numbers, path traversal, SQL-looking
 * strings. JSON-representable only (raw bodies: requests.ts `rawBody`).
 */

export const SQLISH = [
  "' OR '1'='1",
  '1; DROP TABLE rooms; --',
  "'); DELETE FROM users; --",
  '" OR ""="',
  "admin'--",
  '1 UNION SELECT key_hash FROM api_keys',
  "%' AND 1=0 UNION SELECT NULL--",
  "\\'; SELECT pg_sleep(10); --",
];

export const TRAVERSAL = [
  '../../../../etc/passwd',
  '..\\..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '....//....//etc/passwd',
  '/etc/passwd',
  'C:\\boot.ini',
  'file:///etc/passwd',
  '..%00.png',
  'a/../../b.png',
  '.',
  '..',
  '~/.ssh/id_rsa',
];

export const UNICODE = [
  '',
  ' ',
  '\u0000',
  'nul\u0000inside',
  '\u202eevil\u202c',
  '\u200b\u200b\u200b',
  '\ufeffbom',
  '🎲🎲🎲🐉',
  'Z̸̡̢̛̗̘̙̜̝̞̟̠̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓̔̕̚ͅ',
  'ﷺ'.repeat(50),
  '\ud800',
  '\udfff\ud800',
  'a\r\nSet-Cookie: x=1',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '\t\n\u000b\f\r',
  'İıſﬀ',
  '\u0085\u2028\u2029',
];

export const NUMBERS = [
  0,
  -0,
  -1,
  1,
  -2147483649,
  2147483647,
  2147483648,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  -1e308,
  5e-324,
  0.5,
  -0.0001,
  1e21,
  123456789012345680000,
];

export function hugeString(rng: Rng): string {
  return rng.pick(['x', 'é', '🎲', 'ab']).repeat(rng.pick([256, 1025, 10_000, 70_000, 300_000]));
}

/** `[[[...]]]` or `{"a":{"a":...}}` nested `depth` levels. */
export function deep(depth: number, kind: 'array' | 'object'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

/** A hostile JSON value of any family. `ids` are other users' identifiers worth trying. */
export function hostileValue(rng: Rng, ids: readonly (string | number)[] = []): unknown {
  switch (rng.int(0, 12)) {
    case 0:
      return rng.pick(SQLISH);
    case 1:
      return rng.pick(TRAVERSAL);
    case 2:
      return rng.pick(UNICODE);
    case 3:
      return rng.pick(NUMBERS);
    case 4:
      return hugeString(rng);
    case 5:
      return rng.pick([null, true, false, [], {}, '', 'true', '1', '[]', '{}']);
    case 6:
      return deep(rng.pick([10, 100, 1000, 3000]), rng.chance(0.5) ? 'array' : 'object');
    case 7:
      return Array.from({ length: rng.pick([2, 100, 5000]) }, () => rng.pick([1, 'x', null, {}]));
    case 8:
      return Object.fromEntries(Array.from({ length: rng.pick([3, 300, 3000]) }, (_, i) => [`k${i}`, i]));
    case 9:
      return ids.length ? rng.pick(ids) : rng.pick(SQLISH);
    case 10:
      return JSON.parse('{"__proto__": {"admin": true}, "constructor": {"prototype": {"polluted": true}}}');
    case 11:
      return rng.pick(['#zzzzzz', '#fff', 'red', '#1234567', 'rgb(0,0,0)', '0x123456']);
    default:
      return rng.pick(['d20', 'D6', 'mod', 'd0', 'd-1', 'd1000000', '1d20+5', '100000d100000', 'd20'.repeat(1000)]);
  }
}
