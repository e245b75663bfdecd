/**
 * A user's dice box: theme versions they can roll with (docs/api/dice-box.md). Each entry is pinned to a
 * version until the user upgrades it (change.ts); the owner's own themes follow their new versions
 * (publish.ts); the public themes (the built-in ones among them: publicThemes.ts) are in every box, at
 * their latest version, without a row.
 */
import { NotFoundError } from '../../errors';
import type { UserRecord } from '../../users/store';
import { isPublic, latestPublicVersions } from '../publicThemes';
import type { Paged } from '../read';
import { diceBoxEntries, findDiceBoxTheme } from '../store/diceBox';
import { findLatestTheme, loadThemesInOrder } from '../store/themes';
import type { ThemeRecord } from '../store/records';

/** Most theme ids one `ids` filter may name. */
export const MAX_IDS = 100;

export interface DiceBoxQuery {
  /** case-insensitive substring of the theme's id or name */
  filter?: string;
  /** theme ids to return */
  ids?: string[];
  page: number;
  perPage: number;
}

/** `"a, b,,c"` -> `["a", "b", "c"]`. */
export function parseIds(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

function matches(entry: { slug: string; name: string }, query: DiceBoxQuery): boolean {
  if (query.ids && !query.ids.includes(entry.slug)) return false;
  if (query.filter) {
    const needle = query.filter.toLowerCase();
    if (!entry.slug.toLowerCase().includes(needle) && !entry.name.toLowerCase().includes(needle)) return false;
  }
  return true;
}

/** The themes of the box, at the box's versions, filtered, ordered by id, one page of them. */
export async function listDiceBox(user: Pick<UserRecord, 'id'>, query: DiceBoxQuery): Promise<Paged<ThemeRecord>> {
  // Small rows first (id, slug, name): filter and page in code, then load only the page in full.
  const entries = await diceBoxEntries(user.id, query.ids);
  const boxed = new Set(entries.map((e) => e.slug));
  const everyones = [...(await latestPublicVersions()).values()].filter((v) => !boxed.has(v.slug) && (!query.ids || query.ids.includes(v.slug)));
  // Their names, for `filter`: the few public themes' latest versions, one small query.
  for (const theme of await loadThemesInOrder(everyones.map((v) => v.id))) entries.push({ slug: theme.slug, name: theme.name, themeId: theme.id });
  const selected = entries.filter((e) => matches(e, query)).sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const slice = selected.slice((query.page - 1) * query.perPage, query.page * query.perPage);
  return { items: await loadThemesInOrder(slice.map((e) => e.themeId)), total: selected.length };
}

export function notInBox(slug: string): NotFoundError {
  return new NotFoundError(`The theme "${slug}" is not in your dice box.`);
}

/** The theme at the version in the user's box (a public theme without a row: its latest version). */
export async function getDiceBoxTheme(user: Pick<UserRecord, 'id'>, slug: string): Promise<ThemeRecord> {
  const theme = await findDiceBoxTheme(user.id, slug);
  if (theme) return theme;
  if (await isPublic(slug)) {
    const latest = await findLatestTheme(slug);
    if (latest) return latest;
  }
  throw notInBox(slug);
}
