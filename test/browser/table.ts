/** What the dice tests read from a board page: the renderer's state (window.__board) and screenshot pixels. */
import { PNG } from './png';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { screenshot, watchPage } from './chromium';

export interface ShownDie {
  uuid: string;
  dieId: string;
  type: string;
  value: number | null;
  position: [number, number, number];
  top: number;
  topText: string | null;
  flat: number;
  drawn: 'model' | 'solid';
  screen: { x: number; y: number; r: number };
}

type BoardWindow = { __board: { atRest(): boolean; dice(): ShownDie[]; webgl: boolean } };

/** A board page in a context of its own; `options` as the context's (MOTION: see the throw tumble). */
export async function openBoard(
  browser: Browser,
  url: string,
  logs: string[],
  viewport = { width: 1280, height: 800 },
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport, ...options });
  const page = await context.newPage();
  watchPage(page, logs);
  await page.goto(url);
  await page.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });
  return page;
}

/** The dice of roll `uuid` once they rest (every die of it on the table). */
export async function restingDice(page: Page, valueUuids: string[]): Promise<ShownDie[]> {
  await page.waitForFunction(
    (uuids) => {
      const b = (window as unknown as BoardWindow).__board;
      const dice = b.dice();
      return b.atRest() && uuids.every((u) => dice.some((d) => d.uuid === u));
    },
    valueUuids,
    { timeout: 30_000 },
  );
  return page.evaluate(() => (window as unknown as BoardWindow).__board.dice());
}

export async function shot(page: Page, name: string): Promise<PNG> {
  return PNG.read(await screenshot(page, name));
}

/** RGB distance. */
export function distance(a: [number, number, number], b: [number, number, number]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

export function hex(color: string): [number, number, number] {
  const n = parseInt(color.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** How many pixels in a disc around a die are within `tolerance` of `colour`: a fraction of the disc. */
export function share(png: PNG, die: ShownDie, colour: [number, number, number], tolerance = 60): number {
  let hits = 0,
    all = 0;
  const r = Math.max(4, die.screen.r);
  for (let y = Math.floor(die.screen.y - r); y <= die.screen.y + r; y++) {
    for (let x = Math.floor(die.screen.x - r); x <= die.screen.x + r; x++) {
      if ((x - die.screen.x) ** 2 + (y - die.screen.y) ** 2 > r * r || x < 0 || y < 0 || x >= png.width || y >= png.height) continue;
      all++;
      if (distance(png.rgb(x, y), colour) <= tolerance) hits++;
    }
  }
  return all ? hits / all : 0;
}
