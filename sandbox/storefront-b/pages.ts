// The store's pages: the demo shop (products, server-side cart, checkout button taken over by the
// official plugin, native checkout) and the merchant's order list with "Mark as paid".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderOrdersPage } from '../storefront-common/admin.js';
import { productSvg } from '../storefront-common/catalogue.js';
import { formatMoney, html, page, type Raw } from '../storefront-common/html.js';
import { intOf, PlatformError, readCookie, setCookie, type PublicUrl } from '../storefront-common/web.js';
import { emptyPaidCart, interceptCheckout, type Interception } from './plugin.js';
import { homeUrlOf, markOrderPaid } from './rest.js';
import { findPurchasable, requireStore, sessionTokenOf, type Store } from './state.js';

type StoreRequest = FastifyRequest<{ Params: { store: string; file?: string; id?: string }; Body: Record<string, string | undefined> }>;

export const CART_COOKIE = 'wp_woocommerce_session';

const sendHtml = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);
const htmlError = (status: number, message: string) => new PlatformError(status, page({ title: 'Error', body: html`<p class="error">${message}</p>` }), 'text/html; charset=utf-8');

export interface PluginRuntime {
  serviceUrl: () => string | undefined;
  timeoutMs: number;
  record(interception: Interception): void;
}

export function registerPages(app: FastifyInstance, stores: Map<string, Store>, publicUrl: PublicUrl, plugin: PluginRuntime): void {
  const root = (store: Store) => `/stores/${store.id}`;
  const storeUrlOf = (request: FastifyRequest, store: Store) => homeUrlOf(publicUrl, request, store);
  const cartOf = (request: StoreRequest, store: Store) => {
    const token = readCookie(request, CART_COOKIE);
    return token !== undefined && store.carts.get(token) ? token : null;
  };
  const lineViews = (store: Store, token: string | null) =>
    (store.carts.get(token ?? undefined) ?? []).flatMap((l) => {
      const found = findPurchasable(store, l.productId, l.variantId === l.productId ? undefined : l.variantId);
      return found ? [{ ...l, found, lineTotal: found.price * l.quantity }] : [];
    });
  const header = (store: Store, token: string | null): Raw =>
    html`<header><a href="${root(store)}/">${store.name}</a>
      <a href="${root(store)}/cart" id="cart-link">Cart (<span data-cart-count>${lineViews(store, token).reduce((n, l) => n + l.quantity, 0)}</span>)</a></header>`;
  /** What the plugin does first on every shop page: empty the cart once its handed-over checkout is paid. */
  const pluginFirst = (request: StoreRequest, store: Store) => emptyPaidCart(store, cartOf(request, store), plugin.serviceUrl());
  const adminHeader = (store: Store) =>
    html`<header><span>${store.name} · Dashboard</span><nav style="display:flex;gap:18px"><a href="${root(store)}/wp-admin/orders">Orders</a><a href="${root(store)}/">Visit store</a></nav></header>`;

  const shop = async (request: StoreRequest, reply: FastifyReply) => {
    const store = requireStore(stores, request.params.store, 'html');
    await pluginFirst(request, store);
    const cards = store.products.map((p) => html`<div class="card" data-product-id="${p.id}">
      <img src="${root(store)}/wp-content/uploads/${p.slug}.svg" alt="${p.name}">
      <h3>${p.name}</h3><p class="muted">${p.description}</p><p><strong>${p.variations.length ? 'From ' : ''}${formatMoney(p.price, store.currency, store.priceDecimals)}</strong></p>
      <form method="post" action="${root(store)}/cart/add">
        <input type="hidden" name="add-to-cart" value="${p.id}">
        ${p.variations.length ? html`<label>${p.option} <select name="variation_id">${p.variations.map((v) => html`<option value="${v.id}">${v.title} · ${formatMoney(v.price, store.currency, store.priceDecimals)}</option>`)}</select></label>` : ''}
        <input type="number" name="quantity" value="1" min="1" max="99" style="width:60px">
        <button type="submit" data-add-to-cart>Add to cart</button>
      </form></div>`);
    return sendHtml(reply, page({ title: store.name, header: header(store, cartOf(request, store)), body: html`<div class="grid">${cards}</div>` }));
  };
  app.get('/stores/:store', shop);
  app.get('/stores/:store/', shop);

  app.get('/stores/:store/wp-content/uploads/:file', async (request: StoreRequest, reply) => {
    const store = requireStore(stores, request.params.store, 'html');
    const product = store.products.find((p) => `${p.slug}.svg` === request.params.file);
    if (!product) throw new PlatformError(404, 'Not Found', 'text/plain');
    return reply.type('image/svg+xml').header('cache-control', 'public, max-age=3600').send(productSvg(product.source));
  });

  app.post('/stores/:store/cart/add', async (request: StoreRequest, reply) => {
    const store = requireStore(stores, request.params.store, 'html');
    const productId = intOf(request.body?.['add-to-cart']) ?? -1;
    const variationId = intOf(request.body?.variation_id) ?? undefined;
    const quantity = intOf(request.body?.quantity ?? '1') ?? 0;
    const found = findPurchasable(store, productId, variationId);
    if (!found || quantity < 1) throw htmlError(422, 'Please choose product options and a valid quantity.');
    let token = cartOf(request, store);
    if (!token) {
      token = store.carts.create();
      setCookie(reply, CART_COOKIE, token, `${root(store)}/`);
    }
    store.carts.add(token, { productId, variantId: found.variation?.id ?? productId, quantity });
    return reply.redirect(`${root(store)}/cart`, 303);
  });

  app.post('/stores/:store/cart/update', async (request: StoreRequest, reply) => {
    const store = requireStore(stores, request.params.store, 'html');
    const token = cartOf(request, store);
    const key = intOf(request.body?.key);
    const quantity = intOf(request.body?.quantity);
    if (token && key !== null && quantity !== null && quantity >= 0) store.carts.change(token, key, quantity);
    return reply.redirect(`${root(store)}/cart`, 303);
  });

  app.get('/stores/:store/cart', async (request: StoreRequest, reply) => {
    const store = requireStore(stores, request.params.store, 'html');
    await pluginFirst(request, store);
    const token = cartOf(request, store);
    const lines = lineViews(store, token);
    const money = (units: number) => formatMoney(units, store.currency, store.priceDecimals);
    const body = lines.length === 0
      ? html`<h1>Cart</h1><p class="muted">Your cart is currently empty.</p><a class="button" href="${root(store)}/">Return to shop</a>`
      : html`<h1>Cart</h1><table><thead><tr><th></th><th>Product</th><th>Price</th><th>Quantity</th><th>Subtotal</th></tr></thead><tbody>
        ${lines.map((l) => html`<tr data-product-id="${l.productId}">
          <td><img src="${root(store)}/wp-content/uploads/${l.found.product.slug}.svg" alt="" width="56"></td><td>${l.found.title}</td><td>${money(l.found.price)}</td>
          <td><form method="post" action="${root(store)}/cart/update" style="display:flex;gap:6px"><input type="hidden" name="key" value="${l.variantId}">
            <input type="number" name="quantity" value="${l.quantity}" min="0" max="99" style="width:60px"><button type="submit" class="secondary">Update</button></form></td>
          <td>${money(l.lineTotal)}</td></tr>`)}
        </tbody></table>
        <p style="text-align:right;font-size:18px">Total <strong data-cart-total>${money(lines.reduce((n, l) => n + l.lineTotal, 0))}</strong></p>
        <form method="post" action="${root(store)}/checkout" style="text-align:right">
          <button type="submit" id="proceed-to-checkout" data-checkout-button>Proceed to checkout</button></form>`;
    return sendHtml(reply, page({ title: `Cart · ${store.name}`, header: header(store, token), body }));
  });

  // The checkout button posts here; with the plugin active it decides where the shopper goes (303).
  app.post('/stores/:store/checkout', async (request: StoreRequest, reply) => {
    const store = requireStore(stores, request.params.store, 'html');
    await pluginFirst(request, store);
    const token = cartOf(request, store);
    const lines = store.carts.get(token ?? undefined) ?? [];
    if (lines.length === 0) return reply.redirect(`${root(store)}/cart`, 303);
    if (store.plugin.active) {
      const interception = await interceptCheckout(store, storeUrlOf(request, store), lines, { serviceUrl: plugin.serviceUrl(), timeoutMs: plugin.timeoutMs });
      plugin.record(interception);
      // The shopper's session remembers the checkout; the first question comes with the next page.
      if (interception.sessionToken && token) store.handedOver.set(token, { token: interception.sessionToken, checkedAt: 0 });
      if (interception.checkoutUrl) return reply.redirect(interception.checkoutUrl, 303);
    }
    return reply.redirect(`${root(store)}/checkout`, 303);
  });

  app.get('/stores/:store/checkout', async (request: StoreRequest, reply) => {
    const store = requireStore(stores, request.params.store, 'html');
    await pluginFirst(request, store);
    const lines = lineViews(store, cartOf(request, store));
    if (lines.length === 0) return reply.redirect(`${root(store)}/cart`, 303);
    const money = (units: number) => formatMoney(units, store.currency, store.priceDecimals);
    return sendHtml(reply, page({
      title: `Checkout · ${store.name}`,
      header: header(store, cartOf(request, store)),
      body: html`<div data-native-checkout><h1>Checkout</h1>
        <p class="notice">This is the store's native checkout. The sandbox takes no payment here.</p>
        <ul>${lines.map((l) => html`<li>${l.quantity} × ${l.found.title} · ${money(l.lineTotal)}</li>`)}</ul>
        <p>Total <strong>${money(lines.reduce((n, l) => n + l.lineTotal, 0))}</strong></p></div>`,
    }));
  });

  app.get('/stores/:store/wp-admin/orders', async (request: StoreRequest, reply) => {
    const store = requireStore(stores, request.params.store, 'html');
    const rows = [...store.orders.values()].sort((a, b) => b.id - a.id).map((o) => ({
      number: `#${o.id}`,
      createdAt: o.createdAt.toISOString(),
      email: o.billing.email ?? '',
      total: formatMoney(o.total, o.currency, o.decimals),
      payment: o.paymentMethodTitle || o.paymentMethod,
      status: o.status,
      paid: o.paidAt !== null,
      markPaidAction: o.status === 'pending' || o.status === 'on-hold' ? `${root(store)}/wp-admin/orders/${o.id}/mark-paid` : undefined,
      sessionToken: sessionTokenOf(o),
    }));
    return sendHtml(reply, renderOrdersPage({ storeName: store.name, header: adminHeader(store), rows }));
  });

  app.post('/stores/:store/wp-admin/orders/:id/mark-paid', async (request: StoreRequest, reply) => {
    const store = requireStore(stores, request.params.store, 'html');
    const order = store.orders.get(intOf(request.params.id) ?? -1);
    if (!order) throw htmlError(404, 'Order not found.');
    markOrderPaid(order);
    return reply.redirect(`${root(store)}/wp-admin/orders`, 303);
  });
}
