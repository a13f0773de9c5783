// The plugin's PHP end to end against the running service (test/harness/stack.ts): its handoff code, run by
// PHP with the WordPress stubs of tests/bootstrap.php and real HTTP, hands a storefront B cart to
// POST /api/checkout/create, signed with the REST key the merchant connected; the shopper is redirected to
// our checkout page and pays; the service creates the order in the simulated store; the plugin's lookup
// route, over that order as the store holds it, finds it by the session token (what exactly-once relies on).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../test/harness/stack.js';
import { connectStorefrontBDemo, merchantWithProcessor, sessionStatus, shopperPays, storefrontBOrdersOf, waitFor, type Merchant } from '../../test/e2e/checkout-helpers.js';
import { DEMO_STORE, type BOrder, type Store } from '../../sandbox/storefront-b/state.js';
import { checkoutOrigin } from '../../api/routes/merchant/view.js';

const driver = fileURLToPath(new URL('./tests/e2e/driver.php', import.meta.url));

/**
 * Runs the PHP driver with a scene on stdin; answers its JSON. Asynchronous: the service answering it runs in
 * this process. Bounded: the plugin's own HTTP timeout is 4 s, the process gets 20 s.
 */
function php(command: 'handoff' | 'lookup', scene: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = execFile('php', [driver, command], { encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`php ${command} failed (${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'php is not installed: apt-get install php-cli, .ci/run does it' : err.message}): ${stderr}${stdout}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
    child.stdin!.end(JSON.stringify(scene));
  });
}

/** An order as the plugin's wc_get_order stub presents it, from the order the service created in the simulated store. */
const asStoredOrder = (o: BOrder) => ({
  id: o.id,
  status: o.status,
  created: Math.floor(o.createdAt.getTime() / 1000),
  ...(o.paidAt ? { paid: Math.floor(o.paidAt.getTime() / 1000) } : {}),
  total: o.total,
  transaction_id: o.transactionId,
  meta: Object.fromEntries(o.metaData.map((m) => [m.key, m.value])),
});

let stack: TestStack;
let merchant: Merchant;
let store: Store;
let storeUrl: string;

beforeAll(async () => {
  stack = await startTestStack();
  merchant = await merchantWithProcessor(stack, 'PHP Plugin Store');
  store = await connectStorefrontBDemo(stack, merchant);
  storeUrl = `${stack.urls.storefrontB}/stores/${DEMO_STORE.id}`;
});
afterAll(async () => {
  await stack?.close();
});

describe('the plugin\'s PHP against the running service', () => {
  it('given a WooCommerce cart / the PHP handoff gets a checkout URL, the shopper pays there, the order lands in the store and the plugin\'s lookup route finds it', async () => {
    const simple = store.products.find((p) => p.variations.length === 0)!;
    const variable = store.products.find((p) => p.variations.length > 0)!;
    const scene = {
      serviceUrl: stack.apiUrl,
      connectionKey: DEMO_STORE.consumerKey,
      keys: { [DEMO_STORE.consumerKey]: DEMO_STORE.consumerSecret },
      home: storeUrl,
      currency: store.currency,
      cart: [
        { product_id: simple.id, variation_id: 0, quantity: 2 },
        { product_id: variable.id, variation_id: variable.variations[0]!.id, quantity: 1 },
      ],
    };

    const handed = (await php('handoff', scene)) as { redirects: Array<[string, number]>; requests: Array<{ url: string }>; backoff: boolean };
    // The service answered within the plugin's own time-out (HOSTED_CHECKOUT_HANDOFF_TIMEOUT, which the HTTP stub
    // enforces): a late answer would have ended on the native checkout with a back-off, not the redirect below.
    expect(handed.backoff).toBe(false);

    // The shopper is sent (303) to our checkout page of this merchant, for the session the handoff created.
    expect(handed.requests).toEqual([{ url: `${stack.apiUrl}/api/checkout/create` }]);
    expect(handed.redirects, JSON.stringify(handed)).toHaveLength(1);
    const [location, status] = handed.redirects[0]!;
    expect(status).toBe(303);
    const { slug } = await stack.database.db.merchant.findUniqueOrThrow({ where: { id: merchant.id }, select: { slug: true } });
    const origin = checkoutOrigin(slug, stack.config);
    expect(location).toMatch(new RegExp(`^${origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/checkout/cs_[A-Za-z0-9_-]+$`));
    const token = location.split('/').pop()!;
    const session = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(session).toMatchObject({ merchantId: merchant.id, platform: 'STOREFRONT_B', status: 'OPEN', currency: store.currency });
    expect(session.items).toHaveLength(2);
    // The signed handoff is what setup verification waits for.
    expect((await stack.database.db.storefrontBConnection.findUniqueOrThrow({ where: { merchantId: merchant.id } })).pluginInterceptedAt).toBeInstanceOf(Date);

    // The page the shopper lands on, served for the merchant's checkout host.
    const page = await stack.app.inject({ method: 'GET', url: `/checkout/${token}`, headers: { host: new URL(origin).host } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');

    await shopperPays(stack, token);
    await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));
    const [order] = await waitFor('the order in the store', () => {
      const orders = storefrontBOrdersOf(store, token);
      return orders.length > 0 ? orders : undefined;
    });
    expect(storefrontBOrdersOf(store, token)).toHaveLength(1);

    // The lookup route over the store's orders (another session's order beside it) finds this one.
    const others = [...store.orders.values()].filter((o) => o.id !== order!.id).map(asStoredOrder);
    const decoy = { ...asStoredOrder(order!), id: order!.id + 100_000, meta: { _hosted_checkout_session: 'cs_someone_else_entirely_0000000' } };
    const orders = [...others, decoy, asStoredOrder(order!)];
    const found = await php('lookup', { token, orders });
    expect(found).toMatchObject({ found: true, order_id: order!.id, status: order!.status, currency: 'EUR', transaction_id: order!.transactionId });
    expect(Number(found.total)).toBe(order!.total);
    expect(found.date_paid_gmt).not.toBeNull();
    expect(await php('lookup', { token: 'cs_no_such_session_000000000000', orders })).toMatchObject({ code: 'hc_order_not_found', data: { status: 404 } });
  }, 90_000);

  it('given a handoff signed with a key the merchant did not connect / the service refuses it and the shopper stays on the native checkout', async () => {
    const other = 'ck_00000000000000000000000000000000000000ff';
    const handed = (await php('handoff', {
      serviceUrl: stack.apiUrl,
      connectionKey: other,
      keys: { [other]: 'cs_not_the_connected_secret_000000000000' },
      home: storeUrl,
      currency: store.currency,
      cart: [{ product_id: store.products[0]!.id, variation_id: 0, quantity: 1 }],
    })) as { redirects: unknown[]; requests: unknown[]; backoff: boolean };
    expect(handed.requests).toHaveLength(1);
    expect(handed.redirects).toEqual([]);
    // A 401 is the store's configuration, not an outage: no back-off, the next checkout tries again.
    expect(handed.backoff).toBe(false);
  });
});
