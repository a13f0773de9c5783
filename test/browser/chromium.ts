// Debian's Chromium for the browser tests, with the flags these machines need (scripts/lib/chromium.ts, shared
// with the Lighthouse benchmark), and where screenshots go.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/lib/chromium.js';

export { CHROMIUM };

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));

/** `extraArgs` go after the standard flags (e.g. `--host-resolver-rules=MAP checkout.shop.example 127.0.0.1`). */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** Saves a full-page screenshot as test-artifacts/browser/<name>.png; answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

