/**
 * Default participant colours: a hand-picked palette of well separated hues first, then an endless
 * golden-angle sequence, so a room of any size can give every newcomer a colour nobody holds yet.
 */
export const PALETTE = [
  '#e6194b',
  '#3cb44b',
  '#4363d8',
  '#f58231',
  '#911eb4',
  '#42d4f4',
  '#f032e6',
  '#bfef45',
  '#fabed4',
  '#469990',
  '#dcbeff',
  '#9a6324',
  '#ffe119',
  '#800000',
  '#aaffc3',
  '#808000',
  '#ffd8b1',
  '#000075',
  '#a9a9a9',
] as const;

export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

function hslToHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

/** The i-th colour of the sequence (0-based). Beyond the palette: golden-angle hues over a few lightness bands. */
export function colorAt(i: number): string {
  if (i < PALETTE.length) return PALETTE[i]!;
  const n = i - PALETTE.length;
  const hue = (n * 137.507764) % 360;
  const band = Math.floor(n / 360) % 4;
  const lightness = [0.45, 0.6, 0.35, 0.7][band]!;
  const saturation = [0.75, 0.6, 0.85, 0.5][Math.floor(n / 1440) % 4]!;
  return hslToHex(hue, saturation, lightness);
}

/**
 * The first colour of the sequence that no one in the room uses (case-insensitive). Bounded: the first
 * `used.size + 1` distinct colours always contain a free one, and the sequence is far longer than that.
 */
export function pickDefaultColor(usedColors: Iterable<string>): string {
  const used = new Set<string>();
  for (const c of usedColors) used.add(c.toLowerCase());
  const limit = used.size + PALETTE.length + 10_000;
  for (let i = 0; i < limit; i++) {
    const candidate = colorAt(i);
    if (!used.has(candidate)) return candidate;
  }
  // Unreachable in practice (rooms are far smaller than the sequence); still a valid colour.
  return colorAt(limit);
}

/** The smallest position >= 1 that no participant holds: seats freed by leavers are reused. */
export function nextFreePosition(usedPositions: Iterable<number>): number {
  const used = new Set(usedPositions);
  let p = 1;
  while (used.has(p)) p++;
  return p;
}
