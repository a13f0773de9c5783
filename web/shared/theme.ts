// The merchant's colors as CSS custom properties on the page, after the contrast checks of
// domain/brand-colors.ts (so a too-light primary is darkened and button labels are white or black by contrast).
import { checkoutTheme, type CheckoutTheme } from '../../domain/brand-colors.js';

export function applyTheme(primaryColor: string | null | undefined, accentColor: string | null | undefined, root: HTMLElement = document.documentElement): CheckoutTheme {
  const theme = checkoutTheme(primaryColor, accentColor);
  const vars: Record<string, string> = {
    '--primary': theme.primary,
    '--on-primary': theme.onPrimary,
    '--accent': theme.accent,
    '--on-accent': theme.onAccent,
    '--link': theme.link,
  };
  for (const [name, value] of Object.entries(vars)) root.style.setProperty(name, value);
  return theme;
}
