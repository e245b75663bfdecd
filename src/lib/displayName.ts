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
 * `nameKey` is what two names are compared by (case-insensitive after normalization): in one room no two
 * participants may have the same key. Look-alikes from different scripts (Latin "a", Cyrillic "а") are not
 * caught: that needs the Unicode confusables tables (UTS #39), which this project does not carry.
 */

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

/** What names are compared by: normalized, then case-folded (ß is ss, ı is i), then normalized again. */
export function nameKey(name: string): string {
  return normalizeDisplayName(name).toUpperCase().toLowerCase().normalize('NFKC');
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
