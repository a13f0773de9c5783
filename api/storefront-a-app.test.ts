// The merchant's Shopify app configuration and project: generated from the service's own constants, committed as a
// template that cannot drift from them, parsed as TOML (@iarna/toml, the parser Shopify CLI bundles), and laid out as
// Shopify CLI's app structure (shopify.app.toml, package.json, extensions/<handle>/shopify.extension.toml).
import { readFileSync } from 'node:fs';
import TOML from '@iarna/toml';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { STOREFRONT_A_API_VERSION } from '../integrations/storefront-a/api-version.js';
import { STOREFRONT_DELEGATE_SCOPES } from '../integrations/storefront-a/client.js';
import { STOREFRONT_A_SCOPES } from '../model/connections.js';
import { readThemeExtension } from '../scripts/lib/theme-extension.js';
import { storefrontACallbackPath } from './routes/auth/storefront-a.js';
import { pathAllowsTopic } from './routes/webhooks/storefront-a.js';
import { APP_CONFIG_PLACEHOLDERS, APP_PROJECT_DIR, APP_TEMPLATE_PATH, appConfigTemplate, appConfigToml, appProjectFiles, appProjectZip, themeExtensionHandle, THEME_EXTENSION_DIR } from './storefront-a-app.js';

interface AppToml {
  client_id: string;
  name: string;
  application_url: string;
  embedded: boolean;
  access_scopes: { scopes: string; use_legacy_install_flow?: boolean };
  auth: { redirect_urls: string[] };
  webhooks: { api_version: string; subscriptions: Array<{ topics?: string[]; compliance_topics?: string[]; uri: string }> };
}
const parse = (text: string) => TOML.parse(text) as unknown as AppToml;

describe('shopify.app.toml', () => {
  it('given the committed template, then it is exactly what the service\'s constants generate (npm run shopify:app-config writes it)', () => {
    expect(readFileSync(APP_TEMPLATE_PATH, 'utf8')).toBe(appConfigTemplate());
  });

  it('declares our scopes, our OAuth callback, the pinned API version, and app/uninstalled and the three compliance topics at webhook paths our route takes', () => {
    const api = 'https://pay.merchant-checkout.example';
    const config = parse(appConfigToml({ clientId: 'a61950a2cbd5f32876b0b55587ec7a27', apiUrl: `${api}/`, appUrl: 'https://dashboard.example' }));
    expect(config).toMatchObject({ client_id: 'a61950a2cbd5f32876b0b55587ec7a27', application_url: 'https://dashboard.example', embedded: false });
    expect(config.access_scopes.scopes.split(',')).toEqual([...STOREFRONT_A_SCOPES]);
    // Shopify-managed install: topic subscriptions in the configuration are refused under the legacy install flow.
    expect(config.access_scopes.use_legacy_install_flow).toBeUndefined();
    // The delegate Storefront token takes its scopes from the app's own.
    for (const scope of STOREFRONT_DELEGATE_SCOPES) expect(STOREFRONT_A_SCOPES).toContain(scope);
    expect(config.auth.redirect_urls).toEqual([`${api}${storefrontACallbackPath}`]);
    expect(config.webhooks.api_version).toBe(STOREFRONT_A_API_VERSION);
    const subs = config.webhooks.subscriptions;
    expect(subs.flatMap((s) => s.compliance_topics ?? []).sort()).toEqual(['customers/data_request', 'customers/redact', 'shop/redact']);
    expect(subs.flatMap((s) => s.topics ?? [])).toEqual(['app/uninstalled']);
    for (const sub of subs) {
      const [topic] = [...(sub.topics ?? []), ...(sub.compliance_topics ?? [])];
      expect(sub.uri.startsWith(`${api}/webhooks/storefront-a/`)).toBe(true);
      expect(pathAllowsTopic(sub.uri.slice(`${api}/webhooks/storefront-a/`.length), topic!)).toBe(true);
    }
  });

  it('given a client id or URL with quotes, then the TOML stays valid and holds them verbatim', () => {
    const config = parse(appConfigToml({ clientId: 'a"b\\c', apiUrl: 'https://x.example' }));
    expect(config.client_id).toBe('a"b\\c');
    expect(parse(appConfigTemplate()).client_id).toBe(APP_CONFIG_PLACEHOLDERS.clientId);
  });
});

describe('the theme app extension and the app project', () => {
  it('given our extension\'s shopify.extension.toml, then it is a theme extension with a name and the handle its blocks deploy under', () => {
    const toml = TOML.parse(readFileSync(`${THEME_EXTENSION_DIR}/shopify.extension.toml`, 'utf8')) as Record<string, unknown>;
    expect(toml).toMatchObject({ type: 'theme', name: expect.any(String), handle: themeExtensionHandle() });
    expect(readThemeExtension().blocks).toHaveProperty('checkout-embed');
  });

  it('lays out Shopify CLI\'s app structure: the configuration, a package.json, and the extension under extensions/<handle>/; the zip holds the same in one folder', () => {
    const input = { clientId: 'cid-1', apiUrl: 'https://checkout.example.org' };
    const files = appProjectFiles(input);
    const handle = themeExtensionHandle();
    expect(Object.keys(files).sort()).toEqual(['README.md', `extensions/${handle}/assets/checkout-embed.js`, `extensions/${handle}/blocks/checkout-embed.liquid`, `extensions/${handle}/shopify.extension.toml`, 'package.json', 'shopify.app.toml'].sort());
    expect(parse(String(files['shopify.app.toml'])).client_id).toBe('cid-1');
    expect(JSON.parse(String(files['package.json']))).toMatchObject({ private: true, scripts: { deploy: expect.stringMatching(/^npx --yes @shopify\/cli@\d+\.\d+\.\d+ app deploy --allow-updates$/) } });
    const unzipped = unzipSync(appProjectZip(input).bytes);
    expect(Object.keys(unzipped).sort()).toEqual(Object.keys(files).map((f) => `${APP_PROJECT_DIR}/${f}`).sort());
    expect(Buffer.from(unzipped[`${APP_PROJECT_DIR}/shopify.app.toml`]!).toString()).toBe(files['shopify.app.toml']);
  });
});
