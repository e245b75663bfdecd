/**
 * A user's dice box: theme versions they can roll with (docs/api/dice-box.md). Each entry is pinned to a
 * version until the user upgrades it; the owner's own themes follow their new versions (createTheme);
 * the built-in theme is always in every box, at its latest version, without a row.
 */
import { DiceBoxItem, Theme, User } from '../../db/models';
import { ForbiddenError, NotFoundError } from '../../errors';
import { publish } from '../../events/bus';
import { DEFAULT_THEME_ID } from '../defaultTheme';
import { db } from '../../db';
import { findLatestTheme, lockThemeId, type Paged } from '../publish';

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

const withUser = [{ model: User, as: 'user' }];

/** `"a, b,,c"` -> `["a", "b", "c"]`. */
export function parseIds(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean))];
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
export async function listDiceBox(user: User, query: DiceBoxQuery): Promise<Paged<Theme>> {
  // Small rows first (id, slug, name): filter and page in code, then load only the page in full.
  const items = await DiceBoxItem.findAll({
    where: { userId: user.id, ...(query.ids ? { themeSlug: query.ids } : {}) },
    attributes: ['id', 'themeSlug'],
    include: [{ model: Theme, as: 'theme', attributes: ['id', 'slug', 'name'], required: true }],
  });
  const entries = items.map((i) => ({ slug: i.themeSlug, name: i.theme!.name, themeId: i.theme!.id }));
  if (!entries.some((e) => e.slug === DEFAULT_THEME_ID) && (!query.ids || query.ids.includes(DEFAULT_THEME_ID))) {
    const builtIn = await findLatestTheme(DEFAULT_THEME_ID, { withUser: false });
    if (builtIn) entries.push({ slug: builtIn.slug, name: builtIn.name, themeId: builtIn.id });
  }
  const selected = entries.filter((e) => matches(e, query)).sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const slice = selected.slice((query.page - 1) * query.perPage, query.page * query.perPage);
  const rows = slice.length ? await Theme.findAll({ where: { id: slice.map((e) => e.themeId) }, include: withUser }) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { items: slice.map((e) => byId.get(e.themeId)).filter((r): r is Theme => r !== undefined), total: selected.length };
}

function notInBox(slug: string): NotFoundError {
  return new NotFoundError(`The theme "${slug}" is not in your dice box.`);
}

/** The theme at the version in the user's box (the built-in theme: its latest version). */
export async function getDiceBoxTheme(user: User, slug: string): Promise<Theme> {
  const item = await DiceBoxItem.findOne({ where: { userId: user.id, themeSlug: slug }, include: [{ model: Theme, as: 'theme', include: withUser }] });
  if (item?.theme) return item.theme;
  if (slug === DEFAULT_THEME_ID) {
    const builtIn = await findLatestTheme(DEFAULT_THEME_ID);
    if (builtIn) return builtIn;
  }
  throw notInBox(slug);
}

/** Move the box's entry to the theme's latest version; answers that version. */
export async function upgradeDiceBoxTheme(user: User, slug: string): Promise<Theme> {
  if (slug === DEFAULT_THEME_ID) return getDiceBoxTheme(user, slug);
  const result = await db().transaction(async (transaction) => {
    await lockThemeId(slug, transaction);
    const item = await DiceBoxItem.findOne({ where: { userId: user.id, themeSlug: slug }, transaction });
    if (!item) throw notInBox(slug);
    const latest = await findLatestTheme(slug, { transaction });
    if (!latest) throw notInBox(slug);
    if (latest.id === item.themeId) return { theme: latest, changed: false };
    await DiceBoxItem.update({ themeId: latest.id }, { where: { id: item.id }, transaction });
    return { theme: latest, changed: true };
  });
  if (result.changed) publish({ type: 'dicebox.created', userId: user.id, themeId: result.theme.id });
  return result.theme;
}

/** Take a theme out of the box. The built-in theme cannot be taken out (403). */
export async function removeFromDiceBox(user: User, slug: string): Promise<void> {
  if (slug === DEFAULT_THEME_ID) throw new ForbiddenError('The built-in theme is always in your dice box: it cannot be removed.');
  const removed = await DiceBoxItem.destroy({ where: { userId: user.id, themeSlug: slug } });
  if (!removed) throw notInBox(slug);
  publish({ type: 'dicebox.deleted', userId: user.id, themeSlug: slug });
}
