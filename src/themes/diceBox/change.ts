/** Changing a user's dice box: upgrading an entry to the theme's latest version, taking one out. */
import { ForbiddenError } from '../../errors';
import type { UserRecord } from '../../users/store';
import { announce } from '../../lib/invalidation';
import { isPublic } from '../publicThemes';
import { findDiceBoxItem, pointDiceBoxItemAt, removeFromDiceBox as removeEntry } from '../store/diceBox';
import { findLatestTheme, withThemeLocked } from '../store/themes';
import type { ThemeRecord } from '../store/records';
import { getDiceBoxTheme, notInBox } from './read';

/** Move the box's entry to the theme's latest version; answers that version (a public theme without a row is there already). */
export async function upgradeDiceBoxTheme(user: Pick<UserRecord, 'id'>, slug: string): Promise<ThemeRecord> {
  const everyones = await isPublic(slug);
  const result = await withThemeLocked(slug, async (transaction) => {
    const item = await findDiceBoxItem(user.id, slug, transaction);
    if (!item && everyones) return null;
    if (!item) throw notInBox(slug);
    const latest = await findLatestTheme(slug, { transaction });
    if (!latest) throw notInBox(slug);
    if (latest.id === item.themeId) return { theme: latest, changed: false };
    await pointDiceBoxItemAt(item.id, latest.id, transaction);
    return { theme: latest, changed: true };
  });
  if (result === null) return getDiceBoxTheme(user, slug);
  if (result.changed) await announce({ diceBoxes: [user.id] }, { type: 'dicebox.created', userId: user.id, themeId: result.theme.id });
  return result.theme;
}

/**
 * Take a theme out of the box. A public theme cannot be taken out (403); a version of one the box
 * pinned goes, and the box then holds its latest version like every box.
 */
export async function removeFromDiceBox(user: Pick<UserRecord, 'id'>, slug: string): Promise<void> {
  const removed = await removeEntry(user.id, slug);
  if (!removed && (await isPublic(slug))) throw new ForbiddenError(`"${slug}" is a public theme, always in your dice box: it cannot be removed.`);
  if (!removed) throw notInBox(slug);
  await announce({ diceBoxes: [user.id] }, { type: 'dicebox.deleted', userId: user.id, themeSlug: slug });
}
