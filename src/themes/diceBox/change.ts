/** Changing a user's dice box: upgrading an entry to the theme's latest version, taking one out. */
import { ForbiddenError } from '../../errors';
import type { UserRecord } from '../../users/store';
import { announce } from '../../lib/invalidation';
import { DEFAULT_THEME_ID } from '../defaultTheme';
import { findDiceBoxItem, pointDiceBoxItemAt, removeFromDiceBox as removeEntry } from '../store/diceBox';
import { findLatestTheme, withThemeLocked } from '../store/themes';
import type { ThemeRecord } from '../store/records';
import { getDiceBoxTheme, notInBox } from './read';

/** Move the box's entry to the theme's latest version; answers that version. */
export async function upgradeDiceBoxTheme(user: Pick<UserRecord, 'id'>, slug: string): Promise<ThemeRecord> {
  if (slug === DEFAULT_THEME_ID) return getDiceBoxTheme(user, slug);
  const result = await withThemeLocked(slug, async (transaction) => {
    const item = await findDiceBoxItem(user.id, slug, transaction);
    if (!item) throw notInBox(slug);
    const latest = await findLatestTheme(slug, { transaction });
    if (!latest) throw notInBox(slug);
    if (latest.id === item.themeId) return { theme: latest, changed: false };
    await pointDiceBoxItemAt(item.id, latest.id, transaction);
    return { theme: latest, changed: true };
  });
  if (result.changed) await announce({ diceBoxes: [user.id] }, { type: 'dicebox.created', userId: user.id, themeId: result.theme.id });
  return result.theme;
}

/** Take a theme out of the box. The built-in theme cannot be taken out (403). */
export async function removeFromDiceBox(user: Pick<UserRecord, 'id'>, slug: string): Promise<void> {
  if (slug === DEFAULT_THEME_ID) throw new ForbiddenError('The built-in theme is always in your dice box: it cannot be removed.');
  if (!(await removeEntry(user.id, slug))) throw notInBox(slug);
  await announce({ diceBoxes: [user.id] }, { type: 'dicebox.deleted', userId: user.id, themeSlug: slug });
}
