/**
 * Display names (a user's `name`, a participant's `username`): what other people read to know who rolled.
 * Pure: no database.
 *
 * A name is normalized before it is stored, so that what is stored is what is compared:
 * - NFKC, so full-width and other compatibility forms become their plain letters ("Ｏｗｎｅｒ" is "Owner");
 * - variation selectors dropped (they only pick a glyph style, and "Owner\uFE0F" must not pass for new);
 * - runs of white space become one space, and the ends are trimmed.
 * It is then refused when it holds a character that is invisible or rearranges text: control characters
 * (Cc), format characters (Cf: zero-width spaces and joiners, the bidirectional marks, embeddings,
 * overrides and isolates such as U+202E), line and paragraph separators, lone surrogates, unassigned code
 * points, and other default-ignorable ones (Hangul fillers, the combining grapheme joiner); when nothing
 * visible is left; or when it is longer than its column once normalized (NFKC may lengthen: U+FDFA is 18
 * characters).
 *
 * `nameKey` is what two names are compared by: in one room no two participants may have the same key. It
 * is the name's confusable skeleton, case-insensitive: two names that look alike compare equal even when
 * their letters come from different scripts ("Ԍuest D92B", with a Cyrillic Komi Sje, is "Guest D92B").
 * See `skeleton` below for how it is made and how it differs from UTS #39's.
 */

import { confusablesMap } from 'confusables';

const VARIATION_SELECTORS = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Cn}\p{Default_Ignorable_Code_Point}]/u;
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

/** The stored form of a name: NFKC, no variation selectors, single spaces, trimmed. */
export function normalizeDisplayName(raw: string): string {
  return raw.normalize('NFKC').replace(VARIATION_SELECTORS, '').replace(/\s+/gu, ' ').trim();
}

function describe(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why a normalized name cannot be used (a sentence ending the field's label, as joi writes them:
 * "must not be blank"), or null when it can.
 */
export function displayNameProblem(name: string, max: number): string | null {
  if (name === '') return 'must not be blank';
  const invisible = INVISIBLE.exec(name);
  if (invisible) {
    return `must not contain invisible, control or text-direction characters (${describe(invisible[0])} is one)`;
  }
  if (!VISIBLE.test(name)) return 'must contain a visible letter, digit, punctuation mark or symbol';
  if (name.length > max) return `must be at most ${max} characters long once normalized (this one is ${name.length})`;
  return null;
}

/**
 * Where the `confusables` package's table disagrees with UTS #39 in a way that would part names that
 * compare equal by case folding: it takes "ß" for a "B", which would part "Straße" from "STRASSE".
 */
const TABLE_OVERRIDES: ReadonlyMap<string, string> = new Map([
  ['ß', 'ss'],
  ['ẞ', 'ss'],
]);

/**
 * Look-alikes within Latin and the digits that UTS #39 lists and the package's table leaves alone (its
 * table maps other scripts onto these characters, never these onto one another): capital I, digit one
 * and the vertical bar pass for a small L, the digit zero for a capital O. Applied before case folding,
 * which would otherwise have turned the capital I into a small i.
 */
const LATIN_LOOKALIKES = /[I1|0]/g;
const latinLookalike = (c: string) => (c === '0' ? 'O' : 'l');
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The confusable skeleton of a normalized name, after UTS #39 (section 4): decompose (NFD), replace each
 * character by its prototype, decompose again. The prototypes come from the `confusables` package, the
 * table this project carries: a hand-made map of about 3,300 characters of every script onto the Latin
 * letters and digits they look like, built for catching disguised English words. It is not UTS #39's
 * table, and the differences were weighed for display names, where the cost of a false match is a
 * " (2)" on a newcomer's name or a 409 on a rename, and the cost of a miss is an impostor:
 * - it catches what matters here: Cyrillic, Greek, Armenian, Cherokee and Lisu letters passing for
 *   Latin ones (tested: test/lib/displayName.test.ts);
 * - it merges more than UTS #39 (a few letters that only resemble a Latin one, such as Cyrillic "б"
 *   and the digit 6): more names count as taken, never fewer;
 * - accented letters keep their accents here (decomposed first, the combining mark stays, as in
 *   UTS #39), so "Zoë" and "Zoe" stay two names;
 * - it misses look-alikes that are not Latin-looking (Greek "Π" and Cyrillic "П"), which UTS #39 maps
 *   to one another; `LATIN_LOOKALIKES` and "rn" for "m" (in nameKey) add the Latin ones it lacks.
 */
export function skeleton(name: string): string {
  // Most names are printable ASCII, which NFD leaves alone and the table maps onto itself ("|" aside,
  // which LATIN_LOOKALIKES covers): a room's join keys every seat's name, so skip the walk for them.
  if (PRINTABLE_ASCII.test(name)) return name.replace(LATIN_LOOKALIKES, latinLookalike);
  let out = '';
  for (const c of name.normalize('NFD')) out += TABLE_OVERRIDES.get(c) ?? confusablesMap.get(c) ?? c;
  return out.replace(LATIN_LOOKALIKES, latinLookalike).normalize('NFD');
}

/**
 * What names are compared by: normalized, its confusable skeleton (above), case-folded (ß is ss, ı is
 * i), "rn" read as "m" (UTS #39's own example of a look-alike within Latin), composed again (NFKC).
 */
export function nameKey(name: string): string {
  return skeleton(normalizeDisplayName(name)).toUpperCase().toLowerCase().replace(/rn/g, 'm').normalize('NFKC');
}

/** The first `max` UTF-16 units of `s`, without cutting a surrogate pair in half. */
export function cutToLength(s: string, max: number): string {
  if (s.length <= max) return s;
  let out = '';
  for (const c of s) {
    if (out.length + c.length > max) break;
    out += c;
  }
  return out;
}

/**
 * A name for a newcomer that no one in `taken` (keys, see nameKey) has: `name`, else "name (2)",
 * "name (3)", ..., cut so that it stays within `max`.
 */
export function uniqueDisplayName(name: string, taken: ReadonlySet<string>, max: number): string {
  if (!taken.has(nameKey(name))) return name;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = `${cutToLength(name, max - suffix.length).trimEnd()}${suffix}`;
    if (!taken.has(nameKey(candidate))) return candidate;
  }
}
