// The merchant's brand colors, made readable: WCAG 2.x contrast is checked and corrected here, in code,
// so no merchant setting can make the checkout's buttons or links unreadable. Pure; used by the checkout
// page (web/checkout) and anything that previews it.

export const DEFAULT_PRIMARY = '#1f5fd1';
const WHITE = '#ffffff';
const BLACK = '#000000';

/** AA for normal text; what links and button labels need. */
export const TEXT_CONTRAST = 4.5;
/** AA for user-interface components (WCAG 1.4.11): a button against the page. */
export const UI_CONTRAST = 3;

const HEX = /^#([0-9a-f]{6})$/i;

function channels(hex: string): [number, number, number] {
  const m = HEX.exec(hex);
  if (!m) throw new Error(`not a #rrggbb color: ${hex}`);
  const n = parseInt(m[1]!, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

export function isHexColor(value: unknown): value is string {
  return typeof value === 'string' && HEX.test(value);
}

/** WCAG relative luminance of an sRGB color, 0 (black) to 1 (white). */
export function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** White or black, whichever reads better on `background` (one of them always reaches 4.5:1). */
export function textOn(background: string): string {
  return contrast(WHITE, background) >= contrast(BLACK, background) ? WHITE : BLACK;
}

/** `color` with every channel scaled by `factor` (below 1: darker). */
export function shade(color: string, factor: number): string {
  return toHex(channels(color).map((c) => Math.min(255, c * factor)) as [number, number, number]);
}

/** `color` mixed towards black in 4% steps until it reaches `ratio` against `against` (unchanged if it already does). */
export function darkenUntil(color: string, against: string, ratio: number): string {
  const base = channels(color);
  for (let step = 0; step <= 25; step++) {
    const candidate = toHex(base.map((c) => c * (1 - step * 0.04)) as [number, number, number]);
    if (contrast(candidate, against) >= ratio) return candidate;
  }
  return BLACK;
}

export interface CheckoutTheme {
  /** Button background: the merchant's primary, darkened only if it would vanish against the page. */
  primary: string;
  /** Button label color on `primary`. */
  onPrimary: string;
  /** Hover background (the merchant's accent, else a darker primary), checked the same way. */
  accent: string;
  onAccent: string;
  /** Links and focus rings on the page background: the primary, darkened to 4.5:1 if needed. */
  link: string;
  /** What was corrected, for the dashboard to explain (empty when the merchant's colors were fine). */
  corrections: string[];
}

/**
 * The checkout's colors from the merchant's primary and accent (either may be missing or malformed, which
 * falls back to the defaults) on a page background (white).
 */
export function checkoutTheme(primaryColor: string | null | undefined, accentColor: string | null | undefined, page = WHITE): CheckoutTheme {
  const corrections: string[] = [];
  const wanted = isHexColor(primaryColor) ? primaryColor.toLowerCase() : DEFAULT_PRIMARY;
  const primary = darkenUntil(wanted, page, UI_CONTRAST);
  if (primary !== wanted) corrections.push(`primary ${wanted} darkened to ${primary}: too light against the page`);
  const wantedAccent = isHexColor(accentColor) ? accentColor.toLowerCase() : shade(primary, 0.82);
  const accent = darkenUntil(wantedAccent, page, UI_CONTRAST);
  if (isHexColor(accentColor) && accent !== wantedAccent) corrections.push(`accent ${wantedAccent} darkened to ${accent}: too light against the page`);
  const link = darkenUntil(primary, page, TEXT_CONTRAST);
  if (link !== primary) corrections.push(`links use ${link}: the primary is below 4.5:1 as text`);
  return { primary, onPrimary: textOn(primary), accent, onAccent: textOn(accent), link, corrections };
}
