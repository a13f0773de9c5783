import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderBlock } from './pages.js';

const shipped = readFileSync(new URL('../../store-extensions/storefront-a-theme-extension/blocks/checkout-embed.liquid', import.meta.url), 'utf8');
const scope = {
  shop: { permanent_domain: 'demo-shop.myshopify.com' },
  request: { locale: { iso_code: 'de' } },
  app: { metafields: { hosted_checkout: { api_base: { value: 'https://api.example' } } } },
  block: { settings: {} },
};

describe('the demo storefront renders an app embed block as Liquid does', () => {
  it('given our shipped block with its {%- comment -%} / then the comment is not on the page, only the config script', () => {
    const out = renderBlock(shipped, scope, (f) => `/cdn/${f}`);
    expect(out).not.toContain('App embed:');
    expect(out).not.toMatch(/comment|{%/);
    expect(out.trim()).toBe('<script id="hosted-checkout-config" type="application/json">{"apiBase": "https://api.example", "shop": "demo-shop.myshopify.com", "locale": "de"}</script>');
  });

  it('given comments without whitespace control and inline comments / then they render as nothing and the text around stays', () => {
    const out = renderBlock('a {% comment %}hidden {{ shop.permanent_domain }}{% endcomment %} b {% # note %}c{{ shop.permanent_domain }}', scope, (f) => f);
    expect(out).toBe('a  b c' + 'demo-shop.myshopify.com');
  });
});
