// The shop's pages: the demo storefront (products, server-side cart, native checkout) with every installed
// script tag loaded, and the merchant's back office (installed apps, orders with "Mark as paid").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderOrdersPage } from '../storefront-common/admin.js';
import { productSvg } from '../storefront-common/catalogue.js';
import { formatMoney, html, page, raw, type Raw } from '../storefront-common/html.js';
import { baseUrlOf, intOf, PlatformError, readCookie, setCookie, type PublicUrl } from '../storefront-common/web.js';
import { SESSION_TOKEN_KEY } from '../../integrations/storefront-common/order.js';
import { markOrderPaid } from './orders.js';
import { findVariant, requireShop, serializeCart, type SimShop, type State } from './state.js';

type ShopRequest = FastifyRequest<{ Params: { shop: string; file?: string; id?: string }; Querystring: Record<string, string | undefined>; Body: Record<string, string | undefined> }>;

export const CART_COOKIE = 'cart';
/** The storefront's checkout button, for script tags to find: `[data-storefront-checkout]`. */
export const CHECKOUT_BUTTON_ID = 'storefront-checkout';

const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

function storefrontHeader(shop: SimShop, itemCount: number): Raw {
  return html`<header><a href="/shops/${shop.host}/">${shop.name}</a>
    <a href="/shops/${shop.host}/cart" id="cart-link">Cart (<span data-cart-count>${itemCount}</span>)</a></header>`;
}

const adminHeader = (shop: SimShop) =>
  html`<header><span>${shop.name} · Admin</span><nav style="display:flex;gap:18px">
    <a href="/shops/${shop.host}/admin">Apps</a><a href="/shops/${shop.host}/admin/orders">Orders</a><a href="/shops/${shop.host}/">View store</a></nav></header>`;

/**
 * What every storefront page gives scripts: window.Storefront (shop, cart token, currency) and the
 * installed script tags, loaded after the page is parsed like the platform's onload script tags.
 */
function storefrontHead(shop: SimShop, cartToken: string | null): Raw {
  const globals = JSON.stringify({ shop: shop.host, cartToken, currency: shop.currency, country: shop.country, root: `/shops/${shop.host}/`, cartUrl: `/shops/${shop.host}/cart.js` }).replace(/</g, '\\u003c');
  const tags = [...shop.scriptTags.values()].filter((t) => t.displayScope !== 'order_status');
  return html`<script>window.Storefront = ${raw(globals)};</script>${tags.map((t) => html`<script src="${t.src}" defer data-script-tag-id="${t.id}"></script>`)}`;
}

export function registerPages(app: FastifyInstance, state: State, publicUrl: PublicUrl): void {
  const cartOf = (request: ShopRequest, shop: SimShop) => {
    const token = readCookie(request, CART_COOKIE);
    return token !== undefined && shop.carts.get(token) ? token : null;
  };
  const itemCount = (shop: SimShop, token: string | null) => (shop.carts.get(token ?? undefined) ?? []).reduce((n, l) => n + l.quantity, 0);

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
    return sendHtml(reply, page({ title: shop.name, header: storefrontHeader(shop, itemCount(shop, token)), head: storefrontHead(shop, token), body: html`<div class="grid">${cards}</div>` }));
  };
  app.get('/shops/:shop', home);
  app.get('/shops/:shop/', home);

  app.get('/shops/:shop/cdn/products/:file', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const product = shop.products.find((p) => `${p.handle}.svg` === request.params.file);
    if (!product) throw new PlatformError(404, 'Not Found', 'text/plain');
    return reply.type('image/svg+xml').header('cache-control', 'public, max-age=3600').send(productSvg(product.source));
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
      token = shop.carts.create();
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

  app.get('/shops/:shop/cart.js', async (request: ShopRequest) => {
    const shop = requireShop(state, request.params.shop, 'json');
    const token = cartOf(request, shop);
    return token ? serializeCart(baseUrlOf(publicUrl, request), shop, token) : { token: null, currency: shop.currency, item_count: 0, total_price: 0, items: [] };
  });

  app.get('/shops/:shop/cart', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const token = cartOf(request, shop);
    const cart = token ? serializeCart(baseUrlOf(publicUrl, request), shop, token) : null;
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
        <form method="get" action="/shops/${shop.host}/checkout" id="${CHECKOUT_BUTTON_ID}-form" style="text-align:right">
          <button type="submit" name="checkout" id="${CHECKOUT_BUTTON_ID}" data-storefront-checkout>Check out</button></form>`;
    return sendHtml(reply, page({ title: `Cart · ${shop.name}`, header: storefrontHeader(shop, cart?.item_count ?? 0), head: storefrontHead(shop, token), body }));
  });

  // The platform's own checkout: where the button leads when no script tag takes over.
  app.get('/shops/:shop/checkout', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const token = cartOf(request, shop);
    const cart = token ? serializeCart(baseUrlOf(publicUrl, request), shop, token) : null;
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

  app.get('/shops/:shop/admin', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const cancelled = request.query.install_cancelled;
    const installs = [...shop.installs].map(([clientId, install]) => {
      const name = state.apps.get(clientId)?.name ?? clientId;
      const tags = [...shop.scriptTags.values()].filter((t) => t.clientId === clientId);
      return html`<tr><td>${name}</td><td class="muted">${install.scopes.join(', ')}</td><td>${tags.map((t) => html`<div>${t.src}</div>`)}</td><td>${install.installedAt.slice(0, 16).replace('T', ' ')}</td></tr>`;
    });
    return sendHtml(reply, page({
      title: `Admin · ${shop.name}`,
      header: adminHeader(shop),
      body: html`${cancelled ? html`<p class="notice">Installation of ${cancelled} was cancelled.</p>` : ''}
        <h1>Installed apps</h1>
        ${installs.length ? html`<table><thead><tr><th>App</th><th>Access</th><th>Script tags</th><th>Installed</th></tr></thead><tbody>${installs}</tbody></table>` : html`<p class="muted">No apps installed.</p>`}`,
    }));
  });

  app.get('/shops/:shop/admin/orders', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const rows = [...shop.orders.values()].sort((a, b) => b.id - a.id).map((o) => ({
      number: `#${o.number}`,
      createdAt: o.createdAt,
      email: o.email ?? '',
      total: formatMoney(o.total, o.currency),
      payment: o.gateway,
      status: o.financialStatus,
      paid: o.financialStatus === 'paid',
      markPaidAction: o.financialStatus === 'paid' ? undefined : `/shops/${shop.host}/admin/orders/${o.id}/mark-paid`,
      sessionToken: o.noteAttributes.find((a) => a.name === SESSION_TOKEN_KEY)?.value ?? null,
    }));
    return sendHtml(reply, renderOrdersPage({ storeName: shop.name, header: adminHeader(shop), rows }));
  });

  app.post('/shops/:shop/admin/orders/:id/mark-paid', async (request: ShopRequest, reply) => {
    const shop = requireShop(state, request.params.shop, 'html');
    const order = shop.orders.get(intOf(request.params.id) ?? -1);
    if (!order) throw new PlatformError(404, page({ title: 'Not found', body: html`<p>Order not found.</p>` }), 'text/html; charset=utf-8');
    markOrderPaid(state, order);
    return reply.redirect(`/shops/${shop.host}/admin/orders`, 303);
  });
}
