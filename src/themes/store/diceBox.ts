/**
 * The dice box store: every read and write of `dice_box_items`. Returns plain records.
 */
import { db, models } from '../../db';
import { uniquely } from '../../db/errors';
import { plain, type DiceBoxEntry, type ThemeRecord, type ThemesTransaction } from './records';

/**
 * Put a theme version in a user's dice box, or move the box's entry for that theme to this version:
 * one statement, so concurrent writers meet the unique index (user_id, theme_slug) without failing.
 */
export async function putInDiceBox(userId: number, themeSlug: string, themeId: number, transaction: ThemesTransaction): Promise<void> {
  const now = new Date();
  await db().sequelize.query(
    `INSERT INTO dice_box_items (user_id, theme_slug, theme_id, created_at, updated_at)
     VALUES (:userId, :themeSlug, :themeId, :now, :now)
     ON CONFLICT (user_id, theme_slug) DO UPDATE SET theme_id = excluded.theme_id, updated_at = excluded.updated_at`,
    { replacements: { userId, themeSlug, themeId, now }, transaction },
  );
}

/** Add a new entry; one that is already there is a UniqueViolationError (the unique index decides). */
export async function addToDiceBox(userId: number, themeSlug: string, themeId: number, transaction: ThemesTransaction): Promise<void> {
  await uniquely(models().DiceBoxItem.create({ userId, themeSlug, themeId }, { transaction }));
}

export async function isInDiceBox(userId: number, themeSlug: string, transaction?: ThemesTransaction): Promise<boolean> {
  return (await models().DiceBoxItem.count({ where: { userId, themeSlug }, transaction })) > 0;
}

/** The theme ids in a user's box. */
export async function diceBoxSlugs(userId: number): Promise<string[]> {
  const items = await models().DiceBoxItem.findAll({ where: { userId }, attributes: ['themeSlug'] });
  return items.map((i) => i.themeSlug);
}

/** The box's entries (small rows: id, name, version row), only those of `slugs` when given. */
export async function diceBoxEntries(userId: number, slugs?: string[]): Promise<DiceBoxEntry[]> {
  const items = await models().DiceBoxItem.findAll({
    where: { userId, ...(slugs ? { themeSlug: slugs } : {}) },
    attributes: ['id', 'themeSlug'],
    include: [{ model: models().Theme, as: 'theme', attributes: ['id', 'slug', 'name'], required: true }],
  });
  return items.map((i) => ({ slug: i.themeSlug, name: i.theme!.name, themeId: i.theme!.id }));
}

/** The theme version a user's box holds for `slug`, with its owner, or null. */
export async function findDiceBoxTheme(userId: number, themeSlug: string): Promise<ThemeRecord | null> {
  const item = await models().DiceBoxItem.findOne({
    where: { userId, themeSlug },
    include: [{ model: models().Theme, as: 'theme', include: [{ model: models().User, as: 'user' }] }],
  });
  return item?.theme ? plain<ThemeRecord>(item.theme) : null;
}

/** The box's entry for a theme (its row id and the version it holds), or null. */
export async function findDiceBoxItem(userId: number, themeSlug: string, transaction: ThemesTransaction): Promise<{ id: number; themeId: number } | null> {
  const item = await models().DiceBoxItem.findOne({ where: { userId, themeSlug }, attributes: ['id', 'themeId'], transaction });
  return item ? { id: item.id, themeId: item.themeId } : null;
}

export async function pointDiceBoxItemAt(itemId: number, themeId: number, transaction: ThemesTransaction): Promise<void> {
  await models().DiceBoxItem.update({ themeId }, { where: { id: itemId }, transaction });
}

/** Take a theme out of a user's box; whether there was an entry. */
export async function removeFromDiceBox(userId: number, themeSlug: string): Promise<boolean> {
  return (await models().DiceBoxItem.destroy({ where: { userId, themeSlug } })) > 0;
}

/** The users whose box holds a theme. */
export async function diceBoxHolders(themeSlug: string, transaction: ThemesTransaction): Promise<number[]> {
  const items = await models().DiceBoxItem.findAll({ where: { themeSlug }, attributes: ['userId'], transaction });
  return [...new Set(items.map((i) => i.userId))];
}

/** Take a theme out of every box. */
export async function removeFromEveryDiceBox(themeSlug: string, transaction: ThemesTransaction): Promise<void> {
  await models().DiceBoxItem.destroy({ where: { themeSlug }, transaction });
}
