// Our WooCommerce plugin as the zip a merchant uploads in WordPress (Plugins → Add New → Upload Plugin).
// Built from store-extensions/woocommerce/hosted-checkout-connector on first request and kept in memory: no binary
// is committed, and the zip always matches the PHP the tests ran. WordPress's installer wants one top
// folder named like the plugin, holding the main file with the plugin header.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync, type Zippable } from 'fflate';

export const PLUGIN_SLUG = 'hosted-checkout-connector';
export const DEFAULT_PLUGIN_DIR = fileURLToPath(new URL(`../store-extensions/woocommerce/${PLUGIN_SLUG}`, import.meta.url));

export interface PluginZip {
  bytes: Uint8Array;
  /** The Version: line of the plugin header. */
  version: string;
  fileName: string;
}

// Unix permissions in the entries' external attributes (os 3 = Unix), so unzip on a host sets 644/755.
const FILE_ATTRS = (0o100644 << 16) >>> 0;
const DIR_ATTRS = ((0o040755 << 16) | 0x10) >>> 0;

/** The folder as fflate's tree: every file, dot-files (editor and VCS leftovers) excluded. */
function tree(dir: string): Zippable {
  const out: Zippable = {};
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    const stat = statSync(full);
    if (stat.isDirectory()) out[name] = [tree(full), { attrs: DIR_ATTRS }];
    else if (stat.isFile()) out[name] = [readFileSync(full), { attrs: FILE_ATTRS, mtime: stat.mtime }];
  }
  return out;
}

export function buildPluginZip(dir = DEFAULT_PLUGIN_DIR): PluginZip {
  const main = readFileSync(path.join(dir, `${PLUGIN_SLUG}.php`), 'utf8');
  const version = /^\s*\*\s*Version:\s*(\S+)/m.exec(main)?.[1];
  if (!version) throw new Error(`${PLUGIN_SLUG}.php has no Version: header`);
  const bytes = zipSync({ [PLUGIN_SLUG]: [tree(dir), { attrs: DIR_ATTRS }] }, { level: 9, os: 3 });
  return { bytes, version, fileName: `${PLUGIN_SLUG}-${version}.zip` };
}

let cached: PluginZip | undefined;

/** The zip, built once per process (the plugin's files do not change under a running API). */
export function pluginZip(): PluginZip {
  cached ??= buildPluginZip();
  return cached;
}
