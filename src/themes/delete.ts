import { NotFoundError } from '../errors';
import type { UserRecord } from '../users/store';
import { announce } from '../lib/invalidation';
import { unmarkPublic } from './store/publicThemes';
import { authorizeThemeOwner } from './policy';
import { diceBoxHolders, removeFromEveryDiceBox } from './store/diceBox';
import { deleteShareRequestsOfTheme, recordRevocations, shareCodesOfTheme } from './store/shareRequests';
import { deleteThemeVersions, versionRows, withThemeLocked } from './store/themes';

/**
 * Delete every version of a theme (owner only). It leaves every dice box that held it, and its share
 * requests stop working; rolls keep the id they were made with.
 */
export async function deleteTheme(user: Pick<UserRecord, 'id'>, slug: string): Promise<void> {
  const { holders, wasPublic } = await withThemeLocked(slug, async (transaction) => {
    const versions = await versionRows(slug, transaction);
    if (!versions.length) throw new NotFoundError(`There is no theme "${slug}".`);
    authorizeThemeOwner(user, versions[0]!.userId, slug, 'delete');
    const users = await diceBoxHolders(slug, transaction);
    // Children first and explicitly: the schema cascades, but nothing here depends on SQLite's foreign_keys pragma.
    await recordRevocations(await shareCodesOfTheme(slug, transaction), 'theme_deleted', transaction);
    await deleteShareRequestsOfTheme(slug, transaction);
    await removeFromEveryDiceBox(slug, transaction);
    await deleteThemeVersions(
      versions.map((v) => v.id),
      transaction,
    );
    // A public theme stops being one: every box held it.
    return { holders: users, wasPublic: await unmarkPublic(slug, transaction) };
  });
  const events = holders.map((userId) => ({ type: 'dicebox.deleted' as const, userId, themeSlug: slug }));
  await announce(wasPublic ? { allDiceBoxes: true } : { diceBoxes: holders }, ...events);
}
