// One script for storefront A's checkout takeover: the app embed's script of our theme app extension
// (store-extensions/storefront-a-theme-extension/assets/checkout-embed.js, what `shopify app deploy` ships) is the build of
// web/checkout-takeover/index.ts, the very bytes the API serves to legacy script tags at /script-tag.js. Edit the source and
// run `npm run web:build -- checkout-takeover`, which copies the build there. And it stays what Shopify asks of a theme app
// extension's JavaScript: a file in assets/ named by the block's schema, at most 10,000 bytes compressed
// (https://shopify.dev/docs/storefronts/themes/tools/theme-check/checks/asset-size-app-block-javascript).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { APP_EMBED_SCRIPT, ensureWebBuild, SCRIPT_TAG_BUILD } from '../../scripts/web-build.js';
import { readThemeExtension } from '../../scripts/lib/theme-extension.js';
import { blockSchema } from '../../sandbox/storefront-a/pages.js';

describe('the app embed\'s script', () => {
  it('given the script built from web/checkout-takeover / the extension ships that build, byte for byte', async () => {
    await ensureWebBuild({ targets: ['checkout-takeover'] });
    const same = readFileSync(APP_EMBED_SCRIPT).equals(readFileSync(SCRIPT_TAG_BUILD));
    expect(same, `${APP_EMBED_SCRIPT} is not the build of web/checkout-takeover/index.ts: run \`npm run web:build -- checkout-takeover\``).toBe(true);
  }, 120_000);

  it('given the extension as deployed / the app embed block loads it from assets/, within Shopify\'s size for app block JavaScript', () => {
    const extension = readThemeExtension();
    const schema = blockSchema(extension.blocks['checkout-embed']!);
    expect(schema).toMatchObject({ target: 'body', javascript: 'checkout-embed.js' });
    expect(Object.keys(extension.assets)).toEqual(['checkout-embed.js']);
    expect(gzipSync(extension.assets['checkout-embed.js']!).length).toBeLessThanOrEqual(10_000);
  });
});
