import type { Roll } from '../client/types';

/**
 * A roll as a Discord execute-webhook message (https://discord.com/developers/docs/resources/webhook#execute-webhook):
 * one embed with the roller's name and colour, the label, the equation, each die's face and the total.
 * Built from the roll as a bystander sees it (the webhook's visibility is forced to public): a
 * hidden die shows `?`, and so does the total of a roll with hidden dice (a partial sum would read as
 * the result). `allowed_mentions` is empty: a name or label never pings anyone. Discord's limits
 * (title 256, field 1024, description 4096 characters) are kept by cutting.
 */
export interface DiscordEmbed {
  title: string;
  description?: string;
  color?: number;
  author?: { name: string };
  fields: { name: string; value: string; inline?: boolean }[];
  timestamp: string;
  footer?: { text: string };
}

export interface DiscordMessage {
  embeds: DiscordEmbed[];
  allowed_mentions: { parse: never[] };
}

/** Markdown Discord would interpret in text people typed. */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\*_~`|>#[\]()-])/g, '\\$1');
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A die's face as text: its shown face, `?` when hidden; dropped dice struck through. */
function face(value: Roll['values'][number]): string {
  let shown: string;
  if (value.value_to_display === null || value.value === null) shown = '?';
  else if (typeof value.value_to_display === 'object') shown = String(value.value);
  else shown = String(value.value_to_display);
  const die = value.type === 'mod' ? shown : `${value.type}: ${shown}`;
  return value.is_dropped ? `~~${die}~~` : die;
}

export function discordMessage(roll: Roll): DiscordMessage {
  const roller = roll.room?.participants.find((p) => p.user.uuid === roll.user.uuid);
  const name = roller?.username ?? roll.user.name ?? roll.user.username;
  const hidden = roll.values.some((v) => v.is_hidden);
  const dice =
    roll.values
      .filter((v) => v.type !== 'mod' || !v.is_hidden)
      .map(face)
      .join(', ') || '—';
  const color = roller?.color ? Number.parseInt(roller.color.slice(1), 16) : undefined;
  const embed: DiscordEmbed = {
    author: { name: cut(name, 256) },
    title: cut(roll.label ? escapeMarkdown(roll.label) : 'Roll', 256),
    description: cut(escapeMarkdown(roll.equation), 4096),
    fields: [
      { name: 'Dice', value: cut(dice, 1024) },
      { name: 'Total', value: hidden || roll.total_value === null ? '?' : String(roll.total_value), inline: true },
    ],
    timestamp: roll.created_at,
    ...(roll.room ? { footer: { text: cut(roll.room.name, 2048) } } : {}),
  };
  if (color !== undefined && Number.isFinite(color)) embed.color = color;
  return { embeds: [embed], allowed_mentions: { parse: [] } };
}
