import type { Transaction } from 'sequelize';
import { db } from '../../db';

/**
 * Put a theme version in a user's dice box, or move the box's entry for that theme to this version:
 * one statement, so concurrent writers meet the unique index (user_id, theme_slug) without failing.
 */
export async function putInDiceBox(userId: number, themeSlug: string, themeId: number, transaction: Transaction): Promise<void> {
  const now = new Date();
  await db().sequelize.query(
    `INSERT INTO dice_box_items (user_id, theme_slug, theme_id, created_at, updated_at)
     VALUES (:userId, :themeSlug, :themeId, :now, :now)
     ON CONFLICT (user_id, theme_slug) DO UPDATE SET theme_id = excluded.theme_id, updated_at = excluded.updated_at`,
    { replacements: { userId, themeSlug, themeId, now }, transaction },
  );
}
