// What `shopify app deploy` does with our theme app extension, against the storefront A simulator: the files
// under store-extensions/storefront-a-theme-extension/ (blocks/*.liquid, assets/*) become available to the app's shops
// (the merchant then turns the app embed on in the theme editor). Used by `npm start` and the test harness, so
// the local stack runs the very files we ship.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const THEME_EXTENSION_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../store-extensions/storefront-a-theme-extension');

/** The extension as deployed: its handle (shopify.extension.toml), blocks by handle, assets by file name. */
export function readThemeExtension(dir = THEME_EXTENSION_DIR): { handle: string; blocks: Record<string, string>; assets: Record<string, string> } {
  const toml = readFileSync(path.join(dir, 'shopify.extension.toml'), 'utf8');
  const handle = /^handle\s*=\s*"([^"]+)"/m.exec(toml)?.[1] ?? /^name\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!handle) throw new Error(`${dir}/shopify.extension.toml names no handle`);
  const files = (sub: string, ext?: string) =>
    Object.fromEntries(readdirSync(path.join(dir, sub)).filter((f) => !ext || f.endsWith(ext)).map((f) => [ext ? f.slice(0, -ext.length) : f, readFileSync(path.join(dir, sub, f), 'utf8')]));
  return { handle, blocks: files('blocks', '.liquid'), assets: files('assets') };
}

/** Deploys the extension to an app of the simulator at `simUrl` (POST /_control/apps/:clientId/extensions). */
export async function deployThemeExtension(simUrl: string, clientId: string): Promise<void> {
  const res = await fetch(`${simUrl}/_control/apps/${encodeURIComponent(clientId)}/extensions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(readThemeExtension()) });
  if (res.status !== 201) throw new Error(`deploying the theme extension to app ${clientId}: HTTP ${res.status} ${await res.text()}`);
}

/** The merchant's Save in the theme editor with the app embed on (or off) in the published theme. */
export async function setAppEmbed(simUrl: string, shop: string, clientId: string, enabled: boolean, block = 'checkout-embed'): Promise<void> {
  const res = await fetch(`${simUrl}/_control/shops/${shop}/app-embeds`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId, block, enabled }) });
  if (!res.ok) throw new Error(`turning the app embed ${enabled ? 'on' : 'off'} in ${shop}: HTTP ${res.status} ${await res.text()}`);
}
