// The shop's pages: the demo storefront (products, Ajax cart, cart form, native checkout) with the app embed
// blocks active on the published theme rendered into every page (plus legacy script tags until 2027-03-01),
// the theme editor's app-embeds panel that activation deep links open, and the merchant's back office.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderOrdersPage } from '../storefront-common/admin.js';
import { productSvg } from '../storefront-common/catalogue.js';
import { formatMoney as formatUnits, html, page, raw, type Raw } from '../storefront-common/html.js';
import { baseUrlOf, intOf, PlatformError, randomHex, readCookie, setCookie, type PublicUrl } from '../storefront-common/web.js';
import { fractionDigits } from './money.js';
import { createRefund, markOrderPaid, orderMoney } from './orders.js';
import { ajaxCart, findVariant, newCart, requireShop, type DeployedExtension, type SimApp, type SimShop, type State } from './state.js';

type ShopRequest = FastifyRequest<{ Params: { shop: string; file?: string; id?: string }; Querystring: Record<string, string | undefined>; Body: Record<string, string | undefined> }>;

export const CART_COOKIE = 'cart';
/** The storefront's checkout button, for script tags to find: `[data-storefront-checkout]`. */
export const CHECKOUT_BUTTON_ID = 'storefront-checkout';

/** Minor units of `currency` as the shop shows them: Shopify's digits for the currency (money.ts). */
const formatMoney = (minor: number, currency: string) => formatUnits(minor, currency, fractionDigits(currency));

const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

function storefrontHeader(shop: SimShop, itemCount: number): Raw {
  return html`<header><a href="/shops/${shop.host}/">${shop.name}</a>
    <a href="/shops/${shop.host}/cart" id="cart-link">Cart (<span data-cart-count>${itemCount}</span>)</a></header>`;
}

const adminHeader = (shop: SimShop) =>
  html`<header><span>${shop.name} · Admin</span><nav style="display:flex;gap:18px">
    <a href="/shops/${shop.host}/admin">Apps</a><a href="/shops/${shop.host}/admin/orders">Orders</a><a href="/shops/${shop.host}/">View store</a></nav></header>`;

/** A block's `{% schema %}` JSON. */
export function blockSchema(liquid: string): { target?: string; javascript?: string; name?: string } {
  const m = /{%-?\s*schema\s*-?%}([\s\S]*?){%-?\s*endschema\s*-?%}/.exec(liquid);
  try {
    return m ? (JSON.parse(m[1]!) as { target?: string; javascript?: string }) : {};
  } catch {
    return {};
  }
}

/**
 * The Liquid an app embed block may use here (a subset): `{% comment %}…{% endcomment %}` blocks and `{% # … %}` inline
 * comments (rendered as nothing, as Liquid does; `{%-`/`-%}` also strip the whitespace beside them), output tags
 * `{{ path | filter }}` over `shop`, `request.locale`, `app.metafields.<namespace>.<key>.value` and `block.settings`, with
 * the json, escape and asset_url filters.
 */
export function renderBlock(liquid: string, scope: Record<string, unknown>, assetUrl: (file: string) => string): string {
  const body = liquid
    .replace(/{%-?\s*schema\s*-?%}[\s\S]*?{%-?\s*endschema\s*-?%}/, '')
    .replace(/(\s*){%(-?)\s*comment\s*-?%}[\s\S]*?{%-?\s*endcomment\s*(-?)%}(\s*)/g, (_, before: string, trimBefore: string, trimAfter: string, after: string) => (trimBefore ? '' : before) + (trimAfter ? '' : after))
    .replace(/(\s*){%(-?)\s*#[^%]*?(-?)%}(\s*)/g, (_, before: string, trimBefore: string, trimAfter: string, after: string) => (trimBefore ? '' : before) + (trimAfter ? '' : after));
  return body.replace(/{{-?\s*([\s\S]*?)\s*-?}}/g, (_, expr: string) => {
    const [head, ...filters] = expr.split('|').map((x) => x.trim());
    let value: unknown = /^'(.*)'$|^"(.*)"$/.test(head ?? '') ? (head ?? '').slice(1, -1) : (head ?? '').split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), scope);
    for (const f of filters) {
      if (f === 'json') value = JSON.stringify(value ?? null).replace(/</g, '\\u003c');
      else if (f === 'escape') value = String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      else if (f === 'asset_url') value = assetUrl(String(value));
    }
    return value === undefined || value === null ? '' : String(value);
  });
}

export const extensionAssetUrl = (shop: SimShop, app: SimApp, ext: DeployedExtension, file: string) => `/shops/${shop.host}/cdn/extensions/${app.clientId}/${ext.handle}/assets/${file}`;

/** App embed blocks active on the published theme, from its settings_data.json, for installed apps. */
export function activeEmbeds(state: State, shop: SimShop): Array<{ app: SimApp; ext: DeployedExtension; block: string; liquid: string }> {
  const main = shop.themes.find((t) => t.role === 'MAIN');
  const out: Array<{ app: SimApp; ext: DeployedExtension; block: string; liquid: string }> = [];
  for (const entry of Object.values(main?.settingsData.current.blocks ?? {})) {
    const m = /^shopify:\/\/apps\/([^/]+)\/blocks\/([^/]+)\/[^/]+$/.exec(entry.type);
    if (!m || entry.disabled) continue;
    const app = [...state.apps.values()].find((a) => a.handle === m[1] && shop.installs.has(a.clientId));
    const ext = app?.extensions.find((e) => e.blocks[m[2]!] !== undefined);
    if (app && ext) out.push({ app, ext, block: m[2]!, liquid: ext.blocks[m[2]!]! });
  }
  return out;
}

/**
 * What every storefront page gives scripts: window.Shopify (shop, routes.root, currency) as themes do, the
 * active app embed blocks, and legacy script tags (still injected until 2027-03-01).
 */
function storefrontExtras(state: State, shop: SimShop): { head: Raw; end: Raw } {
  const globals = JSON.stringify({ shop: shop.host, locale: shop.primaryLocale, routes: { root: `/shops/${shop.host}/` }, currency: { active: shop.currency }, country: shop.country }).replace(/</g, '\\u003c');
  const tags = [...shop.scriptTags.values()].filter((t) => t.displayScope !== 'ORDER_STATUS');
  const embeds = activeEmbeds(state, shop).map(({ app, ext, liquid }) => {
    const metafields: Record<string, Record<string, { value: string }>> = {};
    for (const [k, v] of shop.appMetafields.get(app.clientId) ?? []) {
      const [ns, key] = [k.slice(0, k.lastIndexOf('.')), k.slice(k.lastIndexOf('.') + 1)];
      (metafields[ns] ??= {})[key] = { value: v.value };
    }
    // request.locale: the shop_locale the shopper browses in; here always the shop's primary one (no language switcher).
    const scope = { shop: { permanent_domain: shop.host, domain: shop.host, currency: shop.currency }, request: { locale: { iso_code: shop.primaryLocale, primary: true } }, app: { metafields }, block: { settings: {} } };
    const schema = blockSchema(liquid);
    const asset = (file: string) => extensionAssetUrl(shop, app, ext, file);
    return html`${raw(renderBlock(liquid, scope, asset))}${schema.javascript ? html`<script src="${asset(schema.javascript)}" defer></script>` : ''}`;
  });
  return {
    head: html`<script>window.Shopify = ${raw(globals)};</script>${tags.map((t) => html`<script src="${t.src}" defer data-script-tag-id="${t.id}"></script>`)}`,
    end: html`${embeds}`,
  };
}

export function registerPages(app: FastifyInstance, state: State, publicUrl: PublicUrl): void {
  const cartOf = (request: ShopRequest, shop: SimShop) => {
    const token = readCookie(request, CART_COOKIE);
    return token !== undefined && shop.carts.get(token) ? token : null;
  };
  const itemCount = (shop: SimShop, token: string | null) => (shop.carts.get(token ?? undefined) ?? []).reduce((n, l) => n + l.quantity, 0);
  const storefrontPage = (shop: SimShop, title: string, token: string | null, body: Raw) => {
    const extras = storefrontExtras(state, shop);
    return page({ title, header: storefrontHeader(shop, itemCount(shop, token)), head: extras.head, body: html`${body}${extras.end}` });
  };

  const home = async (request: ShopRequest, reply: FastifyReply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const token = cartOf(request, shop);
    const cards = shop.products.map((p) => {
      const from = Math.min(...p.variants.map((v) => v.price));
      return html`<div class="card" data-product-id="${p.id}">
        <img src="/shops/${shop.host}/cdn/products/${p.handle}.svg" alt="${p.title}">
        <h3>${p.title}</h3><p class="muted">${p.description}</p><p><strong>${formatMoney(from, shop.currency)}</strong></p>
        <form method="post" action="/shops/${shop.host}/cart/add">
          ${p.variants.length > 1
            ? html`<label>${p.option} <select name="id">${p.variants.map((v) => html`<option value="${v.id}">${v.title} · ${formatMoney(v.price, shop.currency)}</option>`)}</select></label>`
            : html`<input type="hidden" name="id" value="${p.variants[0]?.id}">`}
          <input type="number" name="quantity" value="1" min="1" max="99" style="width:60px">
          <button type="submit" data-add-to-cart>Add to cart</button>
        </form></div>`;
    });
    return sendHtml(reply, storefrontPage(shop, shop.name, token, html`<div class="grid">${cards}</div>`));
  };
  app.get('/shops/:shop', home);
  app.get('/shops/:shop/', home);

  app.get('/shops/:shop/cdn/products/:file', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const product = shop.products.find((p) => `${p.handle}.svg` === request.params.file);
    if (!product) throw new PlatformError(404, 'Not Found', 'text/plain');
    return reply.type('image/svg+xml').header('cache-control', 'public, max-age=3600').send(productSvg(product.source));
  });

  // Theme app extension assets, as Shopify's CDN serves them for a deployed app version.
  app.get('/shops/:shop/cdn/extensions/:clientId/:ext/assets/:file', async (request: FastifyRequest<{ Params: { shop: string; clientId: string; ext: string; file: string } }>, reply) => {
    requireShop(state, request.params.shop, 'html');
    const ext = state.apps.get(request.params.clientId)?.extensions.find((e) => e.handle === request.params.ext);
    const content = ext?.assets[request.params.file];
    if (content === undefined) throw new PlatformError(404, 'Not Found', 'text/plain');
    const type = request.params.file.endsWith('.js') ? 'text/javascript; charset=utf-8' : request.params.file.endsWith('.css') ? 'text/css; charset=utf-8' : 'application/octet-stream';
    return reply.type(type).header('cache-control', 'no-cache').send(content);
  });

  app.post('/shops/:shop/cart/add', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const found = findVariant(shop, intOf(request.body?.id) ?? -1);
    const quantity = intOf(request.body?.quantity ?? '1') ?? 0;
    if (!found || quantity < 1) {
      throw new PlatformError(422, page({ title: 'Cannot add to cart', body: html`<p class="error">Cannot find variant or quantity is invalid.</p>` }), 'text/html; charset=utf-8');
    }
    let token = cartOf(request, shop);
    if (!token) {
      token = newCart(shop);
      setCookie(reply, CART_COOKIE, token, `/shops/${shop.host}/`);
    }
    shop.carts.add(token, { productId: found.product.id, variantId: found.variant.id, quantity });
    return reply.redirect(`/shops/${shop.host}/cart`, 303);
  });

  app.post('/shops/:shop/cart/change', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const token = cartOf(request, shop);
    const variantId = intOf(request.body?.id);
    const quantity = intOf(request.body?.quantity);
    if (token && variantId !== null && quantity !== null && quantity >= 0) shop.carts.change(token, variantId, quantity);
    return reply.redirect(`/shops/${shop.host}/cart`, 303);
  });

  // The theme's cart form posts here; its checkout button (name="checkout") goes on to the native checkout.
  app.post('/shops/:shop/cart', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    return reply.redirect(request.body?.checkout !== undefined ? `/shops/${shop.host}/checkout` : `/shops/${shop.host}/cart`, 302);
  });

  // The Ajax API cart (shopify.dev/docs/api/ajax/reference/cart): token carries ?key=.
  app.get('/shops/:shop/cart.js', async (request: ShopRequest) => {
    const shop = requireShop(state, request.params.shop, 'json');
    let token = cartOf(request, shop);
    if (!token) return { token: null, note: null, attributes: {}, total_price: 0, item_count: 0, items: [], currency: shop.currency, requires_shipping: false };
    token ??= newCart(shop);
    return ajaxCart(baseUrlOf(publicUrl, request), shop, token);
  });

  app.get('/shops/:shop/cart', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const token = cartOf(request, shop);
    const cart = token ? ajaxCart(baseUrlOf(publicUrl, request), shop, token) : null;
    const body = !cart || cart.items.length === 0
      ? html`<h1>Your cart</h1><p class="muted">Your cart is empty.</p><a class="button" href="/shops/${shop.host}/">Continue shopping</a>`
      : html`<h1>Your cart</h1>
        <table><thead><tr><th></th><th>Product</th><th>Price</th><th>Quantity</th><th>Total</th></tr></thead><tbody>
        ${cart.items.map((i) => html`<tr data-variant-id="${i.variant_id}">
          <td><img src="${i.image}" alt="" width="56"></td><td>${i.product_title}<br><span class="muted">${i.variant_title ?? ''}</span></td>
          <td>${formatMoney(i.price, cart.currency)}</td>
          <td><form method="post" action="/shops/${shop.host}/cart/change" style="display:flex;gap:6px">
            <input type="hidden" name="id" value="${i.variant_id}"><input type="number" name="quantity" value="${i.quantity}" min="0" max="99" style="width:60px">
            <button type="submit" class="secondary">Update</button></form></td>
          <td>${formatMoney(i.line_price, cart.currency)}</td></tr>`)}
        </tbody></table>
        <p style="text-align:right;font-size:18px">Subtotal <strong data-cart-subtotal>${formatMoney(cart.total_price, cart.currency)}</strong></p>
        <form method="post" action="/shops/${shop.host}/cart" id="${CHECKOUT_BUTTON_ID}-form" style="text-align:right">
          <button type="submit" name="checkout" id="${CHECKOUT_BUTTON_ID}" data-storefront-checkout>Check out</button></form>`;
    return sendHtml(reply, storefrontPage(shop, `Cart · ${shop.name}`, token, body));
  });

  // The platform's own checkout: where the button leads when nothing takes over.
  app.get('/shops/:shop/checkout', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const token = cartOf(request, shop);
    const cart = token ? ajaxCart(baseUrlOf(publicUrl, request), shop, token) : null;
    if (!cart || cart.items.length === 0) return reply.redirect(`/shops/${shop.host}/cart`, 303);
    return sendHtml(reply, page({
      title: `Checkout · ${shop.name}`,
      header: html`<header><span>${shop.name}</span><span class="muted">Secure checkout</span></header>`,
      body: html`<div data-native-checkout><h1>Checkout</h1>
        <p class="notice">This is the store's native checkout. The sandbox takes no payment here.</p>
        <ul>${cart.items.map((i) => html`<li>${i.quantity} × ${i.title} · ${formatMoney(i.line_price, cart.currency)}</li>`)}</ul>
        <p>Subtotal <strong>${formatMoney(cart.total_price, cart.currency)}</strong></p></div>`,
    }));
  });

  // The theme editor's App embeds panel. The activation deep link
  // /admin/themes/current/editor?context=apps&activateAppId=<client id>/<block handle> opens it with that embed
  // switched on; nothing changes until the merchant saves.
  type EditorRequest = FastifyRequest<{ Params: { shop: string }; Querystring: Record<string, string | undefined>; Body: Record<string, string | undefined> }>;
  const embedsOf = (shop: SimShop) =>
    [...shop.installs.keys()].flatMap((clientId) => {
      const a = state.apps.get(clientId);
      return (a?.extensions ?? []).flatMap((ext) => Object.keys(ext.blocks).filter((b) => blockSchema(ext.blocks[b]!).target !== 'section').map((block) => ({ app: a!, block })));
    });
  const embedKey = (theme: SimShop['themes'][number], app: SimApp, block: string) =>
    Object.entries(theme.settingsData.current.blocks).find(([, v]) => v.type.startsWith(`shopify://apps/${app.handle}/blocks/${block}/`));
  app.get('/shops/:shop/admin/themes/current/editor', async (request: EditorRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const theme = shop.themes.find((t) => t.role === 'MAIN')!;
    const activate = request.query.activateAppId;
    const rows = embedsOf(shop).map(({ app: a, block }) => {
      const entry = embedKey(theme, a, block)?.[1];
      const on = activate === `${a.clientId}/${block}` || (entry !== undefined && !entry.disabled);
      return html`<li><label><input type="checkbox" name="embed" value="${a.clientId}/${block}" ${on ? raw('checked') : ''} data-app-embed="${a.clientId}/${block}"> ${a.name} · ${block}</label></li>`;
    });
    return sendHtml(reply, page({
      title: `Customize ${theme.name}`,
      header: adminHeader(shop),
      body: html`<h1>${theme.name} · App embeds</h1>
        <form method="post" action="/shops/${shop.host}/admin/themes/current/editor">
          <ul data-app-embeds>${rows.length ? rows : html`<li class="muted">No app embeds: deploy an app with a theme app extension.</li>`}</ul>
          <button type="submit" id="theme-editor-save">Save</button></form>`,
    }));
  });
  app.post('/shops/:shop/admin/themes/current/editor', async (request: EditorRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const raw_ = (request.body as Record<string, string | string[] | undefined> | undefined)?.embed;
    const chosen = new Set(Array.isArray(raw_) ? raw_ : raw_ ? [raw_] : []);
    const theme = shop.themes.find((t) => t.role === 'MAIN')!;
    for (const { app: a, block } of embedsOf(shop)) setEmbed(theme, a, block, chosen.has(`${a.clientId}/${block}`));
    return reply.redirect(`/shops/${shop.host}/admin/themes/current/editor`, 303);
  });

  app.get('/shops/:shop/admin', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const cancelled = request.query.install_cancelled;
    const installs = [...shop.installs].map(([clientId, install]) => {
      const name = state.apps.get(clientId)?.name ?? clientId;
      return html`<tr><td>${name}</td><td class="muted">${install.scopes.join(', ')}</td><td>${install.installedAt.slice(0, 16).replace('T', ' ')}</td></tr>`;
    });
    return sendHtml(reply, page({
      title: `Admin · ${shop.name}`,
      header: adminHeader(shop),
      body: html`${cancelled ? html`<p class="notice">Installation of ${cancelled} was cancelled.</p>` : ''}
        <h1>Installed apps</h1>
        ${installs.length ? html`<table><thead><tr><th>App</th><th>Access</th><th>Installed</th></tr></thead><tbody>${installs}</tbody></table>` : html`<p class="muted">No apps installed.</p>`}`,
    }));
  });

  app.get('/shops/:shop/admin/orders', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const rows = [...shop.orders.values()].sort((a, b) => b.id - a.id).map((o) => ({
      number: o.name,
      createdAt: o.createdAt,
      email: o.email ?? '',
      total: formatMoney(o.total, o.currency),
      payment: ({ PAID: 'Paid', PENDING: 'Payment pending', PARTIALLY_REFUNDED: 'Partially refunded', REFUNDED: 'Refunded' } as const)[o.financialStatus],
      status: o.financialStatus.toLowerCase(),
      paid: o.financialStatus !== 'PENDING',
      markPaidAction: o.financialStatus === 'PENDING' ? `/shops/${shop.host}/admin/orders/${o.id}/mark-paid` : undefined,
      refundAction: orderMoney(o).sold > orderMoney(o).refunded ? `/shops/${shop.host}/admin/orders/${o.id}/refund` : undefined,
      sessionToken: o.customAttributes.find((a) => a.key === 'checkout_session_token')?.value ?? null,
    }));
    return sendHtml(reply, renderOrdersPage({ storeName: shop.name, header: adminHeader(shop), rows }));
  });

  // The merchant refunds in Shopify's admin: money back on the order's manual gateway (a REFUND against its sale),
  // every line restocked when asked; apps subscribed to refunds/create hear of it.
  app.post('/shops/:shop/admin/orders/:id/refund', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const order = shop.orders.get(intOf(request.params.id) ?? -1);
    if (!order) throw new PlatformError(404, page({ title: 'Not found', body: html`<p>Order not found.</p>` }), 'text/html; charset=utf-8');
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const sale = order.transactions.find((t) => t.kind === 'SALE');
    const { refund, userErrors } = createRefund(state, order, {
      orderId: `gid://shopify/Order/${order.id}`,
      note: form.reason || null,
      transactions: sale ? [{ amount: form.amount ?? '', gateway: sale.gateway, kind: 'REFUND', orderId: `gid://shopify/Order/${order.id}`, parentId: `gid://shopify/OrderTransaction/${sale.id}` }] : [],
      refundLineItems: form.restock ? order.lineIds.map((id, i) => ({ lineItemId: `gid://shopify/LineItem/${id}`, quantity: order.lines[i]!.quantity, restockType: 'CANCEL' as const })) : [],
    });
    if (!refund) throw new PlatformError(422, page({ title: 'Refund not possible', body: html`<p class="error">${userErrors.map((e) => e.message).join('; ')}</p>` }), 'text/html; charset=utf-8');
    state.emitWebhook?.(shop, { topic: 'refunds/create', orderId: order.id, refundId: refund.id });
    return reply.redirect(`/shops/${shop.host}/admin/orders`, 303);
  });

  app.post('/shops/:shop/admin/orders/:id/mark-paid', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const order = shop.orders.get(intOf(request.params.id) ?? -1);
    if (!order) throw new PlatformError(404, page({ title: 'Not found', body: html`<p>Order not found.</p>` }), 'text/html; charset=utf-8');
    markOrderPaid(state, order);
    return reply.redirect(`/shops/${shop.host}/admin/orders`, 303);
  });
}

/** Turns an app embed on or off in settings_data.json (first activation adds the block with a fresh id). */
export function setEmbed(theme: SimShop['themes'][number], app: SimApp, block: string, enabled: boolean): void {
  const blocks = theme.settingsData.current.blocks;
  const existing = Object.values(blocks).find((v) => v.type.startsWith(`shopify://apps/${app.handle}/blocks/${block}/`));
  if (existing) existing.disabled = !enabled;
  else if (enabled) blocks[String(BigInt('0x' + randomHex(8)) % 10n ** 19n)] = { type: `shopify://apps/${app.handle}/blocks/${block}/${randomHex(16)}`, disabled: false, settings: {} };
}
