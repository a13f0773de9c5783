// Abandoned-checkout recovery through the API (docs/recovery.md): the merchant's settings (validated, scoped), the
// shopper's consent from the checkout page (recorded with time and wording, starting the reminder schedule), the
// signed unsubscribe link and the signed restore link (the cart re-priced by the store; an abandoned checkout recreated),
// and the recovery counted in the stats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../../prisma/client.js';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { createSecretBox } from '../../../security/secrets.js';
import { recoveryLinkSignature } from '../../../security/recovery-links.js';
import { storefrontBAad } from '../../../model/connections.js';
import { PREVIEW_TOKEN_PREFIX } from '../../../domain/tokens.js';
import { newSessionToken } from '../../cart-sources.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let stack: TestStack;
let n = 0;
const db = () => stack.database.db;

async function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, opts: { body?: unknown; token?: string; headers?: Record<string, string> } = {}) {
  const res = await stack.app.inject({
    method, url, payload: opts.body as Json | undefined, remoteAddress: `198.51.100.${(n++ % 250) + 1}`,
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
  });
  let body: Json = {};
  try {
    body = res.body ? (res.json() as Json) : {};
  } catch {
    body = { html: res.body };
  }
  return { status: res.statusCode, body, headers: res.headers };
}

const sign = (purpose: 'restore' | 'unsubscribe', token: string) => recoveryLinkSignature(stack.config.secretsKey!, purpose, token);

let storeN = 0;
/** A storefront B store in the sandbox, a merchant connected to it with recovery on, and one of its products (price in cents). */
async function storeB(opts: { recovery?: boolean } = {}) {
  const res = await fetch(`${stack.urls.storefrontB}/_control/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: `rec-store-${++storeN}-${process.pid}`, currency: 'EUR' }) });
  const created = (await res.json()) as { id: string; storeUrl: string; consumerKey: string; consumerSecret: string };
  const m = await createTestMerchant(db(), stack.app, `Recovery Store ${storeN}`);
  const secrets = createSecretBox(stack.config.secretsKey!);
  await db().storefrontBConnection.create({
    data: {
      merchantId: m.id, storeUrl: created.storeUrl,
      consumerKeyEnc: secrets.encrypt(created.consumerKey, storefrontBAad.consumerKey(m.id)), consumerKeyLast4: created.consumerKey.slice(-4),
      consumerSecretEnc: secrets.encrypt(created.consumerSecret, storefrontBAad.consumerSecret(m.id)), connectedAt: new Date(),
    },
  });
  await db().merchant.update({ where: { id: m.id }, data: { storePlatform: 'STOREFRONT_B', recoveryEnabled: opts.recovery ?? true } });
  const store = stack.sims.storefrontB.stores.get(created.id)!;
  const product = store.products.find((p) => p.variations.length === 0)!;
  return { m, store, product };
}

/** An open session of `m` with two of `product` at `unitPrice` (as create stored it). */
async function session(m: TestMerchant, product: { id: number; name: string }, unitPrice: number, data: Partial<Prisma.CheckoutSessionUncheckedCreateInput> = {}) {
  const token = data.token ?? newSessionToken();
  await db().checkoutSession.create({
    data: {
      token, merchantId: m.id, platform: 'STOREFRONT_B', currency: 'EUR', fxRates: { date: null, rates: {} },
      items: [{ productId: String(product.id), variantId: null, title: product.name, variantTitle: null, quantity: 2, unitPrice, imageUrl: null }],
      subtotalMinor: 2 * unitPrice, ...data,
    },
  });
  return token;
}

async function workflowStatus(token: string): Promise<string | undefined> {
  try {
    return (await stack.temporal.client.workflow.getHandle(WORKFLOWS.checkoutRecovery.id(token)).describe()).status.name;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('recovery settings (PATCH /api/merchant/recovery)', () => {
  it('given a new merchant / recovery is off with the default 1 h, 24 h, 72 h schedule', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Settings Shop');
    const res = await call('GET', '/api/merchant/recovery', { token: m.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ enabled: false, delaysMinutes: [60, 1440, 4320], consentVersion: 1 });
  });

  it('given a good schedule / it is saved for the caller only', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Settings Shop');
    const other = await createTestMerchant(db(), stack.app, 'Other Shop');
    const res = await call('PATCH', '/api/merchant/recovery', { token: m.token, body: { enabled: true, delaysMinutes: [30, 120] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ enabled: true, delaysMinutes: [30, 120] });
    expect(await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).toMatchObject({ recoveryEnabled: true, recoveryDelaysMinutes: [30, 120] });
    expect(await db().merchant.findUniqueOrThrow({ where: { id: other.id } })).toMatchObject({ recoveryEnabled: false, recoveryDelaysMinutes: [60, 1440, 4320] });
  });

  it.each([
    ['four reminders', [60, 120, 180, 240]],
    ['none', []],
    ['out of order', [1440, 60]],
    ['twice the same', [60, 60]],
    ['under 30 minutes', [10]],
    ['over 30 days', [60, 31 * 24 * 60]],
  ])('given a schedule with %s / INVALID_INPUT on body.delaysMinutes and nothing changes', async (_what, delaysMinutes) => {
    const m = await createTestMerchant(db(), stack.app, 'Settings Shop');
    const res = await call('PATCH', '/api/merchant/recovery', { token: m.token, body: { enabled: true, delaysMinutes } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).toMatchObject({ recoveryEnabled: false, recoveryDelaysMinutes: [60, 1440, 4320] });
  });

  it('given no session / 401', async () => {
    expect((await call('PATCH', '/api/merchant/recovery', { body: { enabled: true } })).status).toBe(401);
  });
});

describe('consent (PUT /api/checkout/:token/recovery-consent)', () => {
  it('given recovery off / the page gets no box and a consent is not recorded', async () => {
    const { m, product } = await storeB({ recovery: false });
    const token = await session(m, product, 1500);
    expect((await call('GET', `/api/checkout/session-bundle/${token}`)).body.recoveryOptIn).toBeNull();
    const res = await call('PUT', `/api/checkout/${token}/recovery-consent`, { body: { email: 'ana@example.com', consent: true } });
    expect(res.body).toEqual({ recorded: false, consentAt: null, wording: null });
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ email: null, recoveryConsentAt: null });
    expect(await workflowStatus(token)).toBeUndefined();
  });

  it('given recovery on / the box is unticked; ticking records email, time and wording and starts the schedule; unticking withdraws it and stops it', async () => {
    const { m, product } = await storeB();
    const token = await session(m, product, 1500);
    expect((await call('GET', `/api/checkout/session-bundle/${token}`)).body.recoveryOptIn).toBe(false);

    const before = Date.now();
    const res = await call('PUT', `/api/checkout/${token}/recovery-consent`, { body: { email: ' Ana@Example.com ', consent: true }, headers: { 'accept-language': 'de-DE' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ recorded: true, wording: 'v1:de' });
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token }, include: { events: true } });
    expect(row).toMatchObject({ email: 'ana@example.com', recoveryConsentWording: 'v1:de' });
    expect(row.recoveryConsentAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.events.map((e) => e.type)).toContain('recovery_consent_given');
    expect((await call('GET', `/api/checkout/session-bundle/${token}`)).body.recoveryOptIn).toBe(true);
    expect(await workflowStatus(token)).toBe('RUNNING');

    const off = await call('PUT', `/api/checkout/${token}/recovery-consent`, { body: { email: 'ana@example.com', consent: false } });
    expect(off.body).toMatchObject({ recorded: true, consentAt: null });
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ recoveryConsentAt: null, recoveryConsentWording: null });
    await expect.poll(() => workflowStatus(token), { timeout: 10_000 }).toBe('COMPLETED');
    const result = await stack.temporal.client.workflow.getHandle(WORKFLOWS.checkoutRecovery.id(token)).result();
    // Stopped by the signal, or (when the withdrawal came before the run's first look) by the consent being gone.
    expect(result.sent).toEqual([]);
    expect(['consent_withdrawn', 'no_consent']).toContain(result.ended);
  });

  it('given a preview / nothing recorded', async () => {
    const { m, product } = await storeB();
    const token = await session(m, product, 1500, { token: `${PREVIEW_TOKEN_PREFIX}${newSessionToken().slice(3)}`, source: 'preview' });
    const res = await call('PUT', `/api/checkout/${token}/recovery-consent`, { body: { email: 'ana@example.com', consent: true } });
    expect(res.body.recorded).toBe(false);
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ recoveryConsentAt: null });
  });

  it('given a paid checkout / CONFLICT; and a bad email / INVALID_INPUT', async () => {
    const { m, product } = await storeB();
    const paid = await session(m, product, 1500, { status: 'COMPLETED' });
    expect((await call('PUT', `/api/checkout/${paid}/recovery-consent`, { body: { email: 'ana@example.com', consent: true } })).body.code).toBe('CONFLICT');
    const open = await session(m, product, 1500);
    const bad = await call('PUT', `/api/checkout/${open}/recovery-consent`, { body: { email: 'not an email', consent: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_INPUT');
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token: open } })).toMatchObject({ email: null, recoveryConsentAt: null });
  });
});

describe('unsubscribe link', () => {
  it('given a forged signature / INVALID_SIGNATURE and nothing recorded', async () => {
    const { m, product } = await storeB();
    const token = await session(m, product, 1500, { email: 'ana@example.com', recoveryConsentAt: new Date() });
    const res = await call('POST', `/api/checkout/${token}/unsubscribe?s=${sign('restore', token)}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ recoveryOptedOutAt: null });
  });

  it('given the signed link / GET shows one button and records nothing; POST records the opt-out once, in the shopper\'s language', async () => {
    const { m, product } = await storeB();
    const token = await session(m, product, 1500, { email: 'ana@example.com', recoveryConsentAt: new Date(), shopperLocale: 'fr-FR' });
    const s = sign('unsubscribe', token);
    const page = await call('GET', `/api/checkout/${token}/unsubscribe?s=${s}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body.html).toContain('<form method="post"');
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ recoveryOptedOutAt: null });

    const done = await call('POST', `/api/checkout/${token}/unsubscribe?s=${s}`);
    expect(done.status).toBe(200);
    expect(done.body.html).toContain('Vous ne recevrez plus de rappels');
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token }, include: { events: true } });
    expect(row.recoveryOptedOutAt).not.toBeNull();
    await call('POST', `/api/checkout/${token}/unsubscribe?s=${s}`);
    const again = await db().checkoutSession.findUniqueOrThrow({ where: { token }, include: { events: true } });
    expect(again.recoveryOptedOutAt).toEqual(row.recoveryOptedOutAt);
    expect(again.events.filter((e) => e.type === 'recovery_opted_out')).toHaveLength(1);
  });
});

describe('restore link (GET /api/checkout/:token/recover)', () => {
  it('given a forged signature / INVALID_SIGNATURE', async () => {
    const { m, product } = await storeB();
    const token = await session(m, product, 1500);
    const res = await call('GET', `/api/checkout/${token}/recover?s=${sign('unsubscribe', token)}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
  });

  it('given an open checkout whose product costs more at the store now / the same checkout at the store\'s price, and the page shows the re-checked total', async () => {
    const { m, product } = await storeB();
    const stored = product.price - 300;
    const token = await session(m, product, stored, { email: 'ana@example.com' });
    const res = await call('GET', `/api/checkout/${token}/recover?s=${sign('restore', token)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`/checkout/${token}$`));
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token }, include: { events: true } });
    expect(row.subtotalMinor).toBe(2 * product.price);
    expect(row.events.find((e) => e.type === 'recovery_link_opened')?.data).toEqual({ pricesChanged: true });
    const bundle = await call('GET', `/api/checkout/session-bundle/${token}`);
    expect(bundle.body.cart.subtotal.amount).toBe(2 * product.price);
  });

  it('given an abandoned checkout / a new open checkout of the same cart at current prices, with the email and the consent, recovered from it', async () => {
    const { m, product } = await storeB();
    const sentAt = new Date(Date.now() - 3600_000);
    const token = await session(m, product, product.price, {
      status: 'ABANDONED', email: 'ana@example.com', shopperLocale: 'de-DE', recoveryConsentAt: new Date(Date.now() - 7200_000), recoveryConsentWording: 'v1:de',
      recoveryRemindersSent: 1, recoveryReminderSentAt: sentAt,
    });
    const res = await call('GET', `/api/checkout/${token}/recover?s=${sign('restore', token)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(303);
    const newToken = /\/checkout\/(cs_[\w-]+)$/.exec(String(res.headers.location))?.[1];
    expect(newToken).toBeDefined();
    expect(newToken).not.toBe(token);
    const fresh = await db().checkoutSession.findUniqueOrThrow({ where: { token: newToken! } });
    expect(fresh).toMatchObject({ status: 'OPEN', merchantId: m.id, email: 'ana@example.com', recoveredFrom: token, recoveryConsentWording: 'v1:de', recoveryReminderSentAt: sentAt, subtotalMinor: 2 * product.price });
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token } })).status).toBe('ABANDONED');
    const bundle = await call('GET', `/api/checkout/session-bundle/${newToken}`);
    expect(bundle.body).toMatchObject({ status: 'OPEN', shopper: { email: 'ana@example.com' } });
    // The link clicked again: the same new checkout, not another one.
    const again = await call('GET', `/api/checkout/${token}/recover?s=${sign('restore', token)}`);
    expect(again.headers.location).toMatch(new RegExp(`/checkout/${newToken}$`));
    expect(await db().checkoutSession.count({ where: { recoveredFrom: token } })).toBe(1);
  });

  it('given a paid checkout / its page as it is, nothing re-priced', async () => {
    const { m, product } = await storeB();
    const token = await session(m, product, product.price - 100, { status: 'COMPLETED', totalMinor: 2 * (product.price - 100) });
    const res = await call('GET', `/api/checkout/${token}/recover?s=${sign('restore', token)}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`/checkout/${token}$`));
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token } })).subtotalMinor).toBe(2 * (product.price - 100));
  });
});

describe('recovery in the stats', () => {
  it('given checkouts reminded, one paid after its reminder and one paid before any / only the first counts as recovered, with its money kept', async () => {
    const { m, product } = await storeB();
    const hourAgo = new Date(Date.now() - 3600_000);
    await session(m, product, 1000, { status: 'COMPLETED', totalMinor: 2500, refundedMinor: 500, recoveryRemindersSent: 2, recoveryReminderSentAt: hourAgo, completedAt: new Date() });
    await session(m, product, 1000, { status: 'OPEN', recoveryRemindersSent: 3, recoveryReminderSentAt: hourAgo });
    await session(m, product, 1000, { status: 'COMPLETED', totalMinor: 2000, completedAt: new Date(Date.now() - 7200_000), recoveryReminderSentAt: null });
    const res = await call('GET', '/api/merchant/stats', { token: m.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.recovery).toEqual({ remindedSessions: 2, remindersSent: 5, recoveredOrders: 1, recovered: [{ currency: 'EUR', orders: 1, amountMinor: 2000 }] });
  });
});
