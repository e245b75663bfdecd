/**
 * Who may see which statistics. No rule of its own: the statistics count what the caller may see of
 * the rolls, by the rolls' rules (rolls/policy.ts), so that no figure says more than the rolls do.
 * - A room's statistics: its participants, who read its history (authorizeHistory).
 * - Inside them, only values the caller may see: a roll whispered to others is not counted, nor
 *   another player's hidden die (canSeeRoll, canSeeValue; their SQL side is rolls/store/visible.ts,
 *   which store/counts.ts applies).
 * - A user's statistics: their own rolls, every value of which they see.
 */
export { authorizeHistory as authorizeRoomStats } from '../rolls/policy';
