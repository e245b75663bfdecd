import test from 'ava';
import { cutToLength, displayNameProblem, nameKey, normalizeDisplayName, skeleton, uniqueDisplayName } from '../../src/lib/displayName';

const ok = (raw: string, max = 64) => {
  const name = normalizeDisplayName(raw);
  return displayNameProblem(name, max) === null ? name : null;
};

test('names are stored NFKC-normalized, without variation selectors, with single spaces, trimmed', (t) => {
  t.is(normalizeDisplayName('Ｏｗｎｅｒ'), 'Owner', 'full-width letters are their plain forms');
  t.is(normalizeDisplayName('  Game\u00a0\u3000 Master  '), 'Game Master', 'no-break and ideographic spaces too');
  t.is(normalizeDisplayName('ﬁre'), 'fire', 'ligatures come apart');
  t.is(normalizeDisplayName('Bob\uFE0F'), 'Bob');
  t.is(normalizeDisplayName('a\u2028\tb'), 'a b', 'line separators and tabs are white space');
  t.is(normalizeDisplayName('e\u0301'), 'é', 'composed');
  t.is(normalizeDisplayName(normalizeDisplayName('Ｘ  ｙ')), normalizeDisplayName('Ｘ  ｙ'), 'idempotent');
});

test('invisible, control and text-direction characters are refused, naming the code point', (t) => {
  for (const [raw, code] of [
    ['\u200b', 'U+200B'],
    ['Owner\u200b', 'U+200B'],
    ['\u202eevil', 'U+202E'],
    ['a\u2066b\u2069', 'U+2066'],
    ['\u200fOwner', 'U+200F'],
    ['x\u0000', 'U+0000'],
    ['x\u0007', 'U+0007'],
    ['a\u00adb', 'U+00AD'],
    ['\u3164', 'U+1160'],
    ['a\u034fb', 'U+034F'],
    ['a\ud800b', 'U+D800'],
    ['a\u{e0041}b', 'U+E0041'],
    ['a\u{50000}', 'U+50000'],
    ['👨\u200d👩', 'U+200D'],
  ] as const) {
    const problem = displayNameProblem(normalizeDisplayName(raw), 64);
    t.truthy(problem, JSON.stringify(raw));
    t.true(problem!.includes(code), `${JSON.stringify(raw)}: ${problem}`);
  }
});

test('a name must have something visible, and fit once normalized (NFKC can lengthen it)', (t) => {
  t.is(displayNameProblem(normalizeDisplayName('   '), 64), 'must not be blank');
  t.regex(displayNameProblem(normalizeDisplayName('\u0301\u0301'), 64)!, /visible/);
  t.is(normalizeDisplayName('\uFDFA').length, 18);
  t.regex(displayNameProblem(normalizeDisplayName('\uFDFA'.repeat(4)), 64)!, /at most 64 characters long once normalized \(this one is 7\d\)/);
});

test('ordinary names of any script pass unchanged', (t) => {
  for (const name of ['Alice', 'Zoë', 'محمد', 'שלום', '李小龙', 'Dungeon Master (GM)', '🐉 Smaug', "O'Brien-Smith", 'x'.repeat(64)]) t.is(ok(name), name);
  t.is(ok('x'.repeat(65)), null);
});

test('names compare case-insensitively after normalization', (t) => {
  t.is(nameKey('Owner'), nameKey('OWNER'));
  t.is(nameKey('Owner'), nameKey('Ｏｗｎｅｒ'));
  t.is(nameKey('Straße'), nameKey('STRASSE'));
  t.is(nameKey('Owner'), nameKey(' Owner\uFE0F '));
  t.not(nameKey('Owner'), nameKey('Owner2'));
});

test('look-alikes from other scripts compare equal: the confusable skeleton, not only NFKC', (t) => {
  const lookAlikes: Array<[string, string, string]> = [
    ['Guest D92B', '\u050Cuest D92B', 'Cyrillic Komi Sje for G'],
    ['Alice', '\u0410lice', 'Cyrillic A'],
    ['Hello', '\u041D\u0435llo', 'Cyrillic En and Ie'],
    ['Alice', '\u0391lice', 'Greek Alpha'],
    ['BOB', '\u0392\u039F\u0392', 'Greek Beta and Omicron'],
    ['Guest', 'G\u057Dest', 'Armenian Seh for u'],
    ['Otto', '\u0555tto', 'Armenian Oh for O'],
    ['Bill', 'BiII', 'capital I for small L'],
    ['Guest 10AB', 'Guest l0AB', 'digit one for small L'],
    ['Arnold', 'Amold', 'rn for m'],
  ];
  for (const [name, lookAlike, what] of lookAlikes) t.is(nameKey(lookAlike), nameKey(name), `${what}: ${lookAlike} vs ${name}`);
  // Different names stay different: accents are kept, scripts without a Latin look-alike keep their letters.
  for (const [a, b] of [
    ['Zoë', 'Zoe'],
    ['Guest D92B', 'Guest D93B'],
    ['Дмитрий', 'Дмитрия'],
    ['山田', '田山'],
  ])
    t.not(nameKey(a), nameKey(b), `${a} vs ${b}`);
  t.is(skeleton('\u0410'), 'A');
});

test('a newcomer gets a free name: "name (2)", cut to fit, never splitting a character', (t) => {
  const taken = new Set(['guest abcd', 'guest abcd (2)'].map(nameKey));
  t.is(uniqueDisplayName('Free', taken, 64), 'Free');
  t.is(uniqueDisplayName('Guest ABCD', taken, 64), 'Guest ABCD (3)');
  const long = '😀'.repeat(32);
  const made = uniqueDisplayName(long, new Set([nameKey(long)]), 64);
  t.true(made.length <= 64);
  t.true(made.endsWith(' (2)'));
  t.notRegex(made, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no lone high surrogate');
  t.is(cutToLength('a😀', 2), 'a');
});
