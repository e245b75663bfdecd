import { pageBundle } from '../bundle';

/**
 * The scripts and the one style sheet of the dice pages (src/pages/diceBox/routes.ts): the dice box,
 * a theme's page and a share link's page, each its own Preact bundle; the room page's style sheet
 * (colours, cards, buttons) followed by theirs.
 */
const STYLES = ['pages/room/room.css', 'pages/diceBox/dice.css'];

export const DICE_PAGE_SCRIPTS = {
  'diceBox.js': pageBundle('pages/diceBox/main.ts', STYLES),
  'theme.js': pageBundle('pages/theme/main.ts', STYLES),
  'share.js': pageBundle('pages/theme/accept.ts', STYLES),
} as const;

export type DicePageScript = keyof typeof DICE_PAGE_SCRIPTS;

export const isDicePageScript = (file: string): file is DicePageScript => Object.hasOwn(DICE_PAGE_SCRIPTS, file);
