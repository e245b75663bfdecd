import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core (never `npx playwright install`: it downloads). */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // WebGL without a GPU: SwiftShader through ANGLE (the board falls back to its list without it).
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

/**
 * What a test's pages see of the viewer's motion preference unless it says otherwise: reduced
 * (`prefers-reduced-motion: reduce`), so the board lays each new roll where its throw ends, as it does
 * for a viewer who asked their system for less motion. The end is the same place and faces; drawing
 * the tumble in software GL was about a quarter of the CPU of the files that roll (docs/performance.md,
 * "CI time"). The tests of the throw itself open their pages with MOTION.
 */
const STILL = { reducedMotion: 'reduce' } as const;

/** Options for a page or context that shows the throw as most viewers see it: tumbling, with its collisions. */
export const MOTION = { reducedMotion: 'no-preference' } as const;

/**
 * A browser with a fresh profile (playwright gives every launch its own temporary --user-data-dir),
 * whose `newContext` and `newPage` open with STILL unless their options say otherwise.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 60_000 });
  return new Proxy(browser, {
    get(target, property, receiver) {
      if (property === 'newContext' || property === 'newPage') {
        const open = target[property].bind(target);
        return (options: BrowserContextOptions = {}) => open({ ...STILL, ...options });
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * ava wiring for a browser test file: one Chromium launched before its tests and closed after them,
 * as `chrome.browser` inside the tests.
 */
export function useChromium(test: { before: (fn: () => Promise<void>) => void; after: { always: (fn: () => Promise<void>) => void } }): {
  readonly browser: Browser;
} {
  const holder = {} as { browser: Browser };
  test.before(async () => {
    holder.browser = await launchChromium();
  });
  test.after.always(async () => {
    await holder.browser?.close();
  });
  return holder;
}

export const ARTIFACTS = path.resolve('test-artifacts');

/** Saves a screenshot in test-artifacts/; `transparent` keeps a transparent page transparent (overlay). */
export async function screenshot(page: Page, name: string, transparent = false): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file, fullPage: false, omitBackground: transparent });
  return file;
}

/** Page errors and failed requests, so a test can say what went wrong in the browser. */
export function watchPage(page: Page, log: string[]) {
  page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') log.push(`console: ${m.text()}`);
  });
}
