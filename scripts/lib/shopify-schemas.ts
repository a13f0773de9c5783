// Shopify's real Admin and Storefront GraphQL schemas, for test/contract/storefront-a-schema.test.ts: every document
// our client sends is validated against them. Shopify publishes them (introspection JSON, gzipped) inside its own npm
// package `@shopify/dev-mcp` (dist/data/admin_<version>.json.gz, storefront-graphql_<version>.json.gz; ISC licence),
// the data its developer MCP server answers schema questions from. The package itself pulls in the Shopify CLI,
// Hydrogen and React Router (hundreds of MB), so it is not a dependency: `npm pack` fetches its tarball alone (14 MB;
// npm checks it against the registry's integrity, and we against the pin below), and only the four schema files we
// use are kept in ~/.cache/checkout-service, like the other provisioned tools (scripts/provision.ts).
//
// Versions: the pinned API version (integrations/storefront-a/api-version.ts) and `unstable`, which becomes the next
// stable version (1.16.0 ships 2025-10 … 2026-10 and unstable; no 2027-01 yet).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { STOREFRONT_A_API_VERSION } from '../../integrations/storefront-a/api-version.js';
import { cacheDir, ProvisionError, type Progress } from './temporal-binaries.js';

export const SHOPIFY_SCHEMA_PACKAGE = { name: '@shopify/dev-mcp', version: '1.16.0', integrity: 'sha512-tqgRnK7sQhjew+htxtleTH23nXB5fZcsrhWgEkomsorGXvLOB2mh2upwZm8uzuTDNTZnqtLMe64yIwh6s2awtw==' } as const;
export type ShopifyApi = 'admin' | 'storefront';
/** The pinned version, then the one after it (unstable until Shopify releases it). */
export const SHOPIFY_SCHEMA_VERSIONS = [STOREFRONT_A_API_VERSION, 'unstable'] as const;
const FILE_IN_PACKAGE: Record<ShopifyApi, string> = { admin: 'admin', storefront: 'storefront-graphql' };

const home = () => path.join(cacheDir(), `shopify-schemas-dev-mcp-${SHOPIFY_SCHEMA_PACKAGE.version}`);
const fileName = (api: ShopifyApi, version: string) => `${FILE_IN_PACKAGE[api]}_${version}.json.gz`;

/** Where one schema's gzipped introspection JSON is kept (present after `npm run provision`). */
export const shopifySchemaPath = (api: ShopifyApi, version: string) => path.join(home(), fileName(api, version));

const wanted = () => SHOPIFY_SCHEMA_VERSIONS.flatMap((v) => (['admin', 'storefront'] as const).map((api) => fileName(api, v)));

function exec(cmd: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { cwd, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr.trim().slice(-2000)}`)) : resolve(stdout),
    ),
  );
}

/** The schema files, fetched from the npm registry the first time (a few seconds). */
export async function ensureShopifySchemas(progress: Progress = () => undefined): Promise<string> {
  const dir = home();
  if (wanted().every((f) => existsSync(path.join(dir, f)))) return dir;
  const { name, version, integrity } = SHOPIFY_SCHEMA_PACKAGE;
  progress(`Fetching Shopify's GraphQL schemas (${name}@${version} from the npm registry, first time only) …`);
  mkdirSync(path.dirname(dir), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(dir), '.work-shopify-schemas-'));
  try {
    const packed = JSON.parse(await exec('npm', ['pack', `${name}@${version}`, '--json', '--silent'], work)) as Array<{ filename: string }>;
    const tarball = path.join(work, packed[0]!.filename);
    const actual = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (actual !== integrity) throw new ProvisionError(`${name}@${version}: the tarball's integrity is ${actual}, not the pinned ${integrity}`);
    await exec('tar', ['xzf', tarball, ...wanted().map((f) => `package/dist/data/${f}`)], work);
    const staged = path.join(work, 'package', 'dist', 'data');
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staged, dir);
    } catch (err) {
      // Another run put it in place meanwhile: keep theirs.
      if (!wanted().every((f) => existsSync(path.join(dir, f)))) throw err;
    }
    progress(`Shopify's schemas cached at ${dir}`);
    return dir;
  } catch (err) {
    if (err instanceof ProvisionError) throw err;
    throw new ProvisionError(`Could not fetch Shopify's GraphQL schemas (${name}@${version}): ${(err as Error).message}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
