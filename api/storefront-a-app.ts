// The merchant's own storefront A (Shopify) app as Shopify CLI deploys it: its configuration file
// (shopify.app.toml, https://shopify.dev/docs/apps/build/cli-for-apps/app-configuration) generated from the constants
// the service runs on — the scopes the OAuth install asks for, our callback as the redirect URL, the webhook API
// version and our webhook paths for app/uninstalled and the mandatory compliance topics — and the whole project folder
// (configuration, package.json, our theme app extension) that `shopify app deploy` takes. One generator for the
// committed template (store-extensions/storefront-a-app/shopify.app.toml, checked against it by a test), the operator's script
// (`npm run shopify:app-config`, `npm run shopify:deploy`) and the dashboard's download, so they cannot drift.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync, type Zippable } from 'fflate';
import { STOREFRONT_A_API_VERSION } from '../integrations/storefront-a/api-version.js';
import { STOREFRONT_A_SCOPES } from '../model/connections.js';
import { storefrontACallbackPath } from './routes/auth/storefront-a.js';

/** Shopify CLI, pinned: `npx @shopify/cli@<this> app deploy` (not a dependency: ~30 MB with esbuild). */
export const SHOPIFY_CLI_VERSION = '4.8.2';
export const THEME_EXTENSION_DIR = fileURLToPath(new URL('../store-extensions/storefront-a-theme-extension', import.meta.url));
export const APP_TEMPLATE_PATH = fileURLToPath(new URL('../store-extensions/storefront-a-app/shopify.app.toml', import.meta.url));
/** What the committed template holds where a merchant's values go. */
export const APP_CONFIG_PLACEHOLDERS = { clientId: '<your app client id>', apiUrl: 'https://checkout.example.com' } as const;
/** The folder the download and the deploy script lay out (the extension's handle names its folder under extensions/). */
export const APP_PROJECT_DIR = 'hosted-checkout-shopify-app';

/** Topics declared in the configuration: app/uninstalled, and the compliance topics (which exist only there). */
export const APP_CONFIG_WEBHOOKS = [
  { topic: 'app/uninstalled', compliance: false },
  { topic: 'customers/data_request', compliance: true },
  { topic: 'customers/redact', compliance: true },
  { topic: 'shop/redact', compliance: true },
] as const;

/** Our webhook path for one topic (api/routes/webhooks/storefront-a.ts accepts a path naming the header's topic). */
export const webhookPathOf = (topic: string) => `/webhooks/storefront-a/${topic}`;

export interface AppConfigInput {
  /** The client id of the merchant's app (Dev Dashboard → the app → Settings). */
  clientId: string;
  /** This service as Shopify reaches it (PUBLIC_API_URL): the redirect URL and webhook addresses hang off it. */
  apiUrl: string;
  /** Where the app opens from the Shopify admin (default: the API URL; the dashboard where it is served elsewhere). */
  appUrl?: string;
  name?: string;
}

const tomlString = (s: string) => JSON.stringify(s);

/** shopify.app.toml for the merchant's app. */
export function appConfigToml(input: AppConfigInput): string {
  const api = input.apiUrl.replace(/\/+$/, '');
  const lines = [
    '# Shopify CLI configuration of your own app for the hosted checkout: deploy it (with our theme app extension) with',
    `#   npx @shopify/cli@${SHOPIFY_CLI_VERSION} app deploy --allow-updates`,
    '# in the folder that holds it (docs/storefront-a.md, "The app\'s configuration"). Generated from the service\'s own',
    '# scopes, callback and webhook paths: do not edit by hand, generate it again (npm run shopify:app-config).',
    `client_id = ${tomlString(input.clientId)}`,
    `name = ${tomlString(input.name ?? 'Hosted Checkout')}`,
    `application_url = ${tomlString((input.appUrl ?? api).replace(/\/+$/, ''))}`,
    // Opened from the admin as a page of its own; installed with the authorization code grant from our dashboard.
    'embedded = false',
    '',
    '[access_scopes]',
    '# What the OAuth install asks for (STOREFRONT_A_SCOPES).',
    `scopes = ${tomlString(STOREFRONT_A_SCOPES.join(','))}`,
    '',
    '[auth]',
    `redirect_urls = [ ${tomlString(api + storefrontACallbackPath)} ]`,
    '',
    '[webhooks]',
    `api_version = ${tomlString(STOREFRONT_A_API_VERSION)}`,
  ];
  for (const w of APP_CONFIG_WEBHOOKS) {
    lines.push('', '  [[webhooks.subscriptions]]', `  ${w.compliance ? 'compliance_topics' : 'topics'} = [ ${tomlString(w.topic)} ]`, `  uri = ${tomlString(api + webhookPathOf(w.topic))}`);
  }
  return lines.join('\n') + '\n';
}

/** The committed template: the configuration with placeholders where the merchant's values go. */
export const appConfigTemplate = () => appConfigToml({ clientId: APP_CONFIG_PLACEHOLDERS.clientId, apiUrl: APP_CONFIG_PLACEHOLDERS.apiUrl });

/** The extension's handle (shopify.extension.toml), which names its folder in the project. */
export function themeExtensionHandle(dir = THEME_EXTENSION_DIR): string {
  const handle = /^handle\s*=\s*"([^"]+)"/m.exec(readFileSync(path.join(dir, 'shopify.extension.toml'), 'utf8'))?.[1];
  if (!handle) throw new Error(`${dir}/shopify.extension.toml names no handle`);
  return handle;
}

function filesOf(dir: string, prefix = ''): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, filesOf(full, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = readFileSync(full);
  }
  return out;
}

/** Every file of the project `shopify app deploy` takes, by relative path. */
export function appProjectFiles(input: AppConfigInput): Record<string, string | Buffer> {
  const handle = themeExtensionHandle();
  const extension = Object.fromEntries(Object.entries(filesOf(THEME_EXTENSION_DIR)).map(([p, b]) => [`extensions/${handle}/${p}`, b]));
  return {
    'shopify.app.toml': appConfigToml(input),
    // Shopify CLI finds the app by its package.json; the CLI itself runs through npx, pinned.
    'package.json': JSON.stringify({ name: APP_PROJECT_DIR, private: true, scripts: { deploy: `npx --yes @shopify/cli@${SHOPIFY_CLI_VERSION} app deploy --allow-updates` } }, null, 2) + '\n',
    'README.md': [
      '# Your Shopify app for the hosted checkout',
      '',
      'Its configuration (`shopify.app.toml`: access scopes, redirect URL, webhooks) and our theme app extension (the',
      `checkout button's app embed, \`extensions/${handle}/\`). Deploy both to your app with Shopify CLI (Node 20 or newer):`,
      '',
      '```sh',
      `npx --yes @shopify/cli@${SHOPIFY_CLI_VERSION} app deploy --allow-updates`,
      '```',
      '',
      'It asks you to log in to your Shopify account once. Without a browser (CI), create an App Automation Token in the',
      'Dev Dashboard (your app → Settings → App Automation Token) and set it as `SHOPIFY_APP_AUTOMATION_TOKEN` first.',
      'Then install the app from the checkout dashboard and turn the app embed on in your theme editor.',
      '',
    ].join('\n'),
    ...extension,
  };
}

const FILE_ATTRS = (0o100644 << 16) >>> 0;

/** The project as a zip with one top folder (the dashboard's download). */
export function appProjectZip(input: AppConfigInput): { bytes: Uint8Array; fileName: string } {
  const tree: Zippable = {};
  for (const [p, content] of Object.entries(appProjectFiles(input))) tree[`${APP_PROJECT_DIR}/${p}`] = [typeof content === 'string' ? Buffer.from(content) : content, { attrs: FILE_ATTRS }];
  return { bytes: zipSync(tree, { level: 9, os: 3 }), fileName: `${APP_PROJECT_DIR}.zip` };
}
