import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

/**
 * What every page test checks the same way: axe-core's serious and critical violations, nothing
 * scrolling sideways at 1280 and 375 px, the dark scheme's colours, and a screenshot of each state for a
 * person to look at.
 */

const AXE = fs.readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/**
 * The rules whose verdict a colour scheme can change: the schemes differ in colours and nothing else
 * (the pages' `prefers-color-scheme` rules set only colour custom properties), so the second
 * scheme's check runs these alone rather than every rule again.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * axe-core run in the page (through the debugger, so the page's CSP needs no loosening): serious and
 * critical violations of `selector` (the whole document by default), of every rule or of `rules`.
 */
export async function seriousViolations(page: Page, selector = 'document', rules?: readonly string[]): Promise<string[]> {
  // Injected once per document: checkPage asks three times (two widths, the dark scheme).
  if (!(await page.evaluate('typeof axe === "object"'))) await page.evaluate(AXE);
  const context = selector === 'document' ? 'document' : JSON.stringify(selector);
  const options = { resultTypes: ['violations'], ...(rules ? { runOnly: { type: 'rule', values: rules } } : {}) };
  const violations = (await page.evaluate(`axe.run(${context}, ${JSON.stringify(options)}).then((r) => r.violations)`)) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

type Asserts = { deepEqual: (a: unknown, b: unknown, m?: string) => void; true: (v: boolean, m?: string) => void };

/**
 * A page at both widths: no serious or critical axe violation, nothing scrolls sideways, a screenshot of
 * each into `shots` as NAME-WIDTH.png; then (unless `dark: false`) the same axe check in the dark scheme
 * and NAME-dark.png. Ends at 1280 px in the light scheme.
 */
export async function checkPage(t: Asserts, page: Page, name: string, options: { shots: string; dark?: boolean }) {
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 740 : 800 });
    t.deepEqual(await seriousViolations(page), [], `${name} at ${width} px: no serious or critical axe violation`);
    const [scrollWidth, innerWidth] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
    t.true(scrollWidth <= innerWidth, `${name} at ${width} px: nothing scrolls sideways (${scrollWidth} > ${innerWidth})`);
    await page.screenshot({ path: path.join(options.shots, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  if (options.dark === false) return;
  // The pages follow the system's colour scheme: the dark one's colours are checked too.
  await page.emulateMedia({ colorScheme: 'dark' });
  t.deepEqual(await seriousViolations(page, 'document', COLOUR_RULES), [], `${name} in the dark scheme: no serious or critical axe violation of colour`);
  await page.screenshot({ path: path.join(options.shots, `${name}-dark.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
}
