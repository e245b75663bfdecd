/**
 * A theme's label colours (docs/spec.md §2.3: "derived from the theme name"). When a manifest leaves a label colour
 * out or empty, it is derived:
 *
 * - background: a colour chosen by the name alone. FNV-1a (32 bit) of the name (trimmed, Unicode NFC, lower
 *   case) picks the hue (hash mod 360), the saturation (55..74 %) and the lightness (35..59 %). The same name
 *   always gives the same colour, on every instance and after every restart.
 * - text colour: black or white, whichever contrasts more with the background by WCAG 2 (relative luminance).
 *   One of the two always reaches at least 4.58:1, above the 4.5:1 WCAG AA asks for normal text.
 * - when only the text colour is given, the derived background's lightness is moved (hue and saturation
 *   kept) until the pair reaches 4.5:1, when any lightness can.
 */
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

export const WCAG_AA = 4.5;

export interface Label {
  color: string;
  background_color: string;
}

export function isHexColor(value: unknown): value is string {
  return typeof value === 'string' && HEX.test(value);
}

/** FNV-1a over the UTF-8 bytes: tiny, stable, well spread for short strings. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** [r, g, b] in 0..255 from a hex colour (alpha ignored). */
export function parseHex(hex: string): [number, number, number] {
  let digits = hex.slice(1);
  if (digits.length <= 4) digits = [...digits].map((d) => d + d).join('');
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16)) as [number, number, number];
}

export function toHex([r, g, b]: [number, number, number]): string {
  return (
    '#' +
    [r, g, b]
      .map((c) =>
        Math.round(Math.min(255, Math.max(0, c)))
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')
  );
}

/** h in degrees, s and l in 0..1. */
export function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const hp = (((h % 360) + 360) % 360) / 60;
  const x = c * (1 - Math.abs((hp % 2) - 1));
  const [r1, g1, b1] = hp < 1 ? [c, x, 0] : hp < 2 ? [x, c, 0] : hp < 3 ? [0, c, x] : hp < 4 ? [0, x, c] : hp < 5 ? [x, 0, c] : [c, 0, x];
  const m = l - c / 2;
  return [(r1 + m) * 255, (g1 + m) * 255, (b1 + m) * 255];
}

/** WCAG 2 relative luminance of a hex colour. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio, 1..21. */
export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

function nameKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase();
}

function nameHsl(name: string): [number, number, number] {
  const hash = fnv1a(nameKey(name));
  const hue = hash % 360;
  const saturation = 0.55 + ((hash >>> 9) % 20) / 100;
  const lightness = 0.35 + ((hash >>> 17) % 25) / 100;
  return [hue, saturation, lightness];
}

/** The background colour a name stands for. */
export function nameColor(name: string): string {
  const [h, s, l] = nameHsl(name);
  return toHex(hslToRgb(h, s, l));
}

/** Black or white, whichever reads better on `background`. */
export function textColorFor(background: string): string {
  return contrastRatio(background, '#000000') >= contrastRatio(background, '#ffffff') ? '#000000' : '#ffffff';
}

/** The name's background, its lightness moved as little as needed to contrast 4.5:1 with `text`. */
function backgroundFor(name: string, text: string): string {
  const [h, s, l] = nameHsl(name);
  const start = toHex(hslToRgb(h, s, l));
  if (contrastRatio(start, text) >= WCAG_AA) return start;
  for (let step = 0.01; step <= 1; step += 0.01) {
    for (const candidate of [l - step, l + step]) {
      if (candidate < 0 || candidate > 1) continue;
      const hex = toHex(hslToRgb(h, s, candidate));
      if (contrastRatio(hex, text) >= WCAG_AA) return hex;
    }
  }
  return start;
}

/** The label of a theme: the manifest's colours where given, derived ones where missing or empty. */
export function resolveLabel(name: string, given: { color?: unknown; background_color?: unknown } | null | undefined): Label {
  const color = isHexColor(given?.color) ? given.color : null;
  const background = isHexColor(given?.background_color) ? given.background_color : null;
  if (color && background) return { color, background_color: background };
  if (background) return { color: textColorFor(background), background_color: background };
  if (color) return { color, background_color: backgroundFor(name, color) };
  const derived = nameColor(name);
  return { color: textColorFor(derived), background_color: derived };
}
