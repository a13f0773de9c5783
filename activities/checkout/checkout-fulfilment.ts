// What follows a paid checkout (COMPLETED, or COD_CONFIRMED): the order on the merchant's store, exactly
// once, and the order emails, each exactly once. The workflow passes the session token only; the cart,
// the address and the store credentials are read here, so workflow history holds none of them.
//
// The order is exactly once whatever retries or crashes happen: the storeOrderId the session recorded;
// else, on storefront A (Shopify, no idempotency keys), the draft order recorded on the session's timeline
// before it is completed, read back by id after a lost answer and completed at most once; on storefront B a
// lookup by session token, then a create with idempotency key `checkout-<token>`. Store down, 5xx, time-out or 429 are retryable; a store that refuses for good
// (rejected, unauthorized, not_found, ...) fails non-retryably with a message written for the merchant.
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import type { Db, Prisma } from '../../prisma/client.js';
import type { CheckoutSession, EmailMessage as EmailRow, Merchant } from '../../generated/prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import { STORE_PLATFORM_NAME } from '../../domain/platform-names.js';
import type { UrlGuard } from '../../security/ssrf.js';
import type { EmailClient } from '../../integrations/email/index.js';
import { IntegrationError, isIntegrationError, type IntegrationErrorKind } from '../../integrations/errors.js';
import type { OrderIntent } from '../../integrations/storefront-a/client.js';
import { processorClientFor, storeClientFor } from '../../model/connections.js';
import { contentsOf, orderInputOf, paymentMethodOf, upsellOrderInputOf } from '../../model/checkout/store-order-input.js';
import { quoteStoreTaxes } from '../../model/checkout/store-taxes.js';
import { judgePayment } from '../../domain/checkout/payment-check.js';
import type { StoreOrder, StoreOrderInput, StoreRefund, StoreRefundInput } from '../../integrations/storefront-common/order.js';
import { formatMoney } from '../../domain/money.js';
import { SHOPPER_EMAIL_LANGUAGES, shopperEmailLanguage, shopperMoneyLocale } from '../../domain/checkout/shopper-emails/index.js';
import { orderNumberLabel } from '../../domain/checkout/store-order.js';
import { hasStoreOrder } from '../../domain/checkout/checkout-status.js';
import { classifyFailures } from '../failures.js';
import { recordEmail, sendRecordedEmail, type EmailSendResult } from '../email/email-outbox.js';
import { renderOrderEmail, type OrderEmailData } from './order-email-templates.js';
import { orderEmailIdempotencyKey, refundEmailIdempotencyKey, upsellEmailIdempotencyKey, type OrderEmailKind, type RefundEmailKind } from '../../model/checkout/order-emails.js';
import { notificationRecipients, type NotificationEvent } from '../../domain/merchant/notifications.js';
import { upsellOrderKey } from '../../domain/checkout/upsell-purchase.js';
import type { UpsellPurchase } from '../../generated/prisma/client.js';
import type { PaymentQuote } from './checkout-session.js';

export interface FulfilmentActivityDeps {
  config: Config;
  db: Db;
  secrets: SecretBox;
  email: EmailClient;
  /** Re-checks a storefront B store URL right before the call (it is merchant-given). */
  urlGuard?: UrlGuard;
  /** Per-call time-out of the store clients (default 10 s); tests shorten it. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export const storeOrderIdempotencyKey = (token: string) => `checkout-${token}`;

const EMAIL_LOCALE = 'en';
/** The emails that go to the shopper (from the shop's name, replies to the merchant); the rest go to the merchant. */
const SHOPPER_EMAILS: ReadonlySet<OrderEmailKind> = new Set(['order_confirmation', 'refund_confirmation', 'upsell_confirmation']);
/**
 * The merchant's emails the notification settings switch (domain/merchant/notifications.ts). The others to the merchant (a payment
 * on hold, a refund the store refused to book) ask for action on money and always go, to the same addresses.
 */
const MERCHANT_NOTIFICATION_EVENT: Partial<Record<OrderEmailKind, NotificationEvent>> = {
  merchant_order_notification: 'newOrder',
  store_order_problem: 'storeOrderFailed',
  merchant_refund_notification: 'refund',
};
/** Amounts in the reader's format: the shopper's recorded locale when their emails speak its language ("77,19 €"), English for the merchant. */
const moneyLocaleFor = (kind: OrderEmailKind, shopperLocale: string | null) => (SHOPPER_EMAILS.has(kind) ? shopperMoneyLocale(shopperLocale) : EMAIL_LOCALE);
/** The store's platform as the merchant knows it (emails to the merchant, messages on the order). */
const STORE_LABEL = STORE_PLATFORM_NAME;

type Session = CheckoutSession & { merchant: Merchant };

/** A short order reference for the shopper while the store has no order number; the token itself stays out of emails. */
export const checkoutReference = (token: string) => `CS-${createHash('sha256').update(token).digest('hex').slice(0, 8).toUpperCase()}`;

const HINTS: Partial<Record<IntegrationErrorKind, string>> = {
  unauthorized: 'The store no longer accepts the checkout service: reconnect it in your dashboard.',
  not_found: 'The store or its order API was not found: check the store connection in your dashboard.',
  rejected: 'Check that the products of this order still exist in your store.',
};

/** The store's own words on why it refused, from either platform's error body. */
function remoteDetail(remote: unknown): string | null {
  if (typeof remote === 'string') return remote.slice(0, 300) || null;
  if (!remote || typeof remote !== 'object') return null;
  const { errors, message, data } = remote as { errors?: unknown; message?: unknown; data?: { params?: unknown } };
  const entries = (o: object) => Object.entries(o).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`).join('; ');
  if (typeof errors === 'string') return errors;
  if (errors && typeof errors === 'object') return entries(errors);
  if (typeof message !== 'string') return null;
  return data?.params && typeof data.params === 'object' ? `${message} (${entries(data.params)})` : message;
}

/** A permanent store error, re-worded for the merchant (it becomes storeOrderError and the problem email). */
/** What a merchant can do about a refund the store refused: the money is back already, the store only records it. */
const REFUND_HINTS: Partial<Record<IntegrationErrorKind, string>> = {
  unauthorized: 'The store no longer accepts the checkout service (or the app lacks the refund permission: reinstall it): record the refund in the store by hand.',
  not_found: 'The order is gone from the store: nothing to record there.',
  rejected: 'Record the refund on the order in your store by hand; do not refund the card again.',
};

function refusal(err: IntegrationError, label: string, what: 'order' | 'refund' = 'order'): IntegrationError {
  const detail = remoteDetail(err.remote) ?? err.message;
  const hint = (what === 'refund' ? REFUND_HINTS : HINTS)[err.kind] ?? '';
  const message = `${label} refused the ${what}${err.status ? ` (HTTP ${err.status})` : ''}: ${detail}. ${hint}`.trim();
  return new IntegrationError(err.system, err.kind, message, { status: err.status, remote: err.remote, cause: err });
}

export function createFulfilmentActivities(deps: FulfilmentActivityDeps) {
  const { config, db } = deps;
  const outbox = { db, email: deps.email, from: config.email.from };

  /** The session, which must be paid or COD-confirmed (or vouched for as paid by its workflow: `paid`). */
  async function sessionOf(token: string, paid = false): Promise<Session> {
    const s = await db.checkoutSession.findUnique({ where: { token }, include: { merchant: true } });
    if (!s) throw ApplicationFailure.nonRetryable(`checkout session ${token} not found`, 'NOT_FOUND');
    if (!hasStoreOrder(s.status) && !paid) throw ApplicationFailure.nonRetryable(`checkout session ${token} is ${s.status}, not paid or confirmed`, 'CONFLICT');
    return s;
  }

  /**
   * An order's intent, kept on the session's timeline: the draft order that is (or becomes) that one order. The
   * checkout's own order is `store_order_draft`; an accepted upsell's is `upsell_order_draft` with its id.
   */
  const intentOf = (token: string, upsellId?: string): OrderIntent => {
    const type = upsellId ? 'upsell_order_draft' : 'store_order_draft';
    return {
      async draftOrderId() {
        const event = await db.sessionEvent.findFirst({ where: { token, type, ...(upsellId ? { data: { path: ['upsellId'], equals: upsellId } } : {}) }, orderBy: { at: 'asc' } });
        const id = (event?.data as { draftOrderId?: unknown } | null)?.draftOrderId;
        return typeof id === 'string' ? id : null;
      },
      async recordDraftOrder(draftOrderId: string) {
        await db.sessionEvent.create({ data: { token, type, data: { draftOrderId, ...(upsellId ? { upsellId } : {}) } } });
      },
    };
  };

  /**
   * The store the session came from, with the merchant's current credentials (model/connections.ts): an order,
   * exactly once — the checkout's own, or (`upsellId`) an accepted upsell's, found by its own key.
   */
  type Store = {
    placeOrder(input: StoreOrderInput): Promise<{ order: StoreOrder; created: boolean }>;
    getOrder(id: string): Promise<StoreOrder>;
    refundOrder(id: string, input: StoreRefundInput): Promise<StoreRefund>;
  };
  async function storeOf(s: Session, upsellId?: string): Promise<Store> {
    if (s.platform === 'STOREFRONT_A') {
      const client = await storeClientFor(deps, s.merchantId, 'STOREFRONT_A');
      // Shopify has no idempotency key for orders: a draft order recorded before it is completed, completed once.
      return { placeOrder: (input) => client.placeOrder(input, intentOf(s.token, upsellId)), getOrder: (id) => client.getOrder(id), refundOrder: (id, input) => client.refundOrder(id, input) };
    }
    const b = await storeClientFor(deps, s.merchantId, 'STOREFRONT_B');
    const key = upsellId ? upsellOrderKey(s.token, upsellId) : s.token;
    return {
      // Found by its key (the session token) before creating, and created with idempotency key `checkout-<key>`.
      async placeOrder(input) {
        const found = await b.findOrderBySessionToken(key);
        if (found) return { order: found, created: false };
        return { order: await b.createOrder(input, storeOrderIdempotencyKey(key)), created: true };
      },
      getOrder: (id) => b.getOrder(id),
      refundOrder: (id, input) => b.refundOrder(id, input),
    };
  }

  /** Places an order through `store`; a permanent refusal is re-worded for the merchant. */
  async function place(s: Session, store: Awaited<ReturnType<typeof storeOf>>, input: StoreOrderInput): Promise<{ order: StoreOrder; created: boolean }> {
    try {
      return await store.placeOrder(input);
    } catch (err) {
      if (isIntegrationError(err) && !err.retryable) throw refusal(err, STORE_LABEL[s.platform]);
      throw err;
    }
  }

  /** Records the store's order on the session once (the first recording writes the timeline event). */
  async function recordOrder(s: Session, order: StoreOrder, created: boolean): Promise<void> {
    await db.$transaction(async (tx) => {
      const { count } = await tx.checkoutSession.updateMany({ where: { token: s.token, storeOrderId: null }, data: { storeOrderId: order.id, storeOrderNumber: order.number, storeOrderStatus: order.status, storeOrderError: null } });
      if (count === 0) return;
      await tx.sessionEvent.create({
        data: { token: s.token, type: 'order_created', data: { storeOrderId: order.id, number: order.number, status: order.status, paid: order.paid, platform: s.platform, created } },
      });
    });
  }

  /** What the order emails show, from the session, its merchant and the recorded store order. */
  async function emailDataOf(s: Session, kind: OrderEmailKind): Promise<OrderEmailData> {
    const { items, address, billing } = contentsOf(s);
    const partyOf = (a: typeof address) => ({
      name: a.name,
      addressLines: [a.line1, a.line2, `${a.postalCode} ${a.city}`, a.region].filter((l): l is string => !!l),
      country: a.country,
    });
    const fmt = (minor: number) => formatMoney({ amount: minor, currency: s.currency }, moneyLocaleFor(kind, s.shopperLocale));
    const shippingMinor = s.shippingMinor ?? 0;
    const merchandiseMinor = items.reduce((n, i) => n + i.unitPrice * i.quantity, 0);
    return {
      shop: { name: s.merchant.shopName, logoUrl: s.merchant.logoUrl, primaryColor: s.merchant.primaryColor },
      reference: s.storeOrderNumber ? orderNumberLabel(s.storeOrderNumber) : checkoutReference(s.token),
      storeOrderId: s.storeOrderId,
      storeLabel: STORE_LABEL[s.platform],
      token: s.token,
      customer: { email: s.email ?? '', ...partyOf(address) },
      billing: billing ? partyOf(billing) : null,
      locale: s.shopperLocale,
      lines: items.map((i) => ({ title: i.title, variantTitle: i.variantTitle ?? null, quantity: i.quantity, amount: fmt(i.unitPrice * i.quantity) })),
      shipping: { name: s.shippingName ?? 'Shipping', amount: fmt(shippingMinor) },
      subtotal: fmt(merchandiseMinor),
      discount: s.discountCode && s.discountMinor > 0 ? { code: s.discountCode, amount: fmt(s.discountMinor) } : null,
      total: fmt(s.totalMinor ?? merchandiseMinor + shippingMinor - s.discountMinor),
      payment: { method: paymentMethodOf(s), reference: s.processorPaymentId },
      problem: s.storeOrderError,
    };
  }

  /** The shopper's email comes from the shop: its name as sender name, replies go to the merchant. */
  function brandedSender(shopName: string): string {
    const address = /<([^>]+)>/.exec(config.email.from)?.[1] ?? config.email.from.trim();
    const name = shopName.replace(/["\\<>\r\n]/g, '').trim();
    return name ? `"${name}" <${address}>` : config.email.from;
  }

  /** The accepted upsell `upsellId` of the session. */
  async function upsellPurchaseOf(token: string, upsellId: string): Promise<UpsellPurchase> {
    const purchase = await db.upsellPurchase.findUnique({ where: { token_upsellId: { token, upsellId } } });
    if (!purchase) throw ApplicationFailure.nonRetryable(`No upsell ${upsellId} was accepted on checkout ${token}`, 'NOT_FOUND');
    return purchase;
  }

  /** Records the email `kind` of the session and sends it once; the timeline notes the send. */
  async function sendOrderEmail(token: string, kind: OrderEmailKind): Promise<EmailSendResult> {
    const idempotencyKey = orderEmailIdempotencyKey(kind, token);
    const existing = await db.emailMessage.findUnique({ where: { idempotencyKey } });
    if (existing?.status === 'SENT') return { status: 'ALREADY_SENT', messageId: existing.providerMessageId };
    const s = await sessionOf(token, kind === 'payment_held');
    if (kind === 'store_order_problem' && s.storeOrderId) throw ApplicationFailure.nonRetryable(`checkout session ${token} has its store order ${s.storeOrderId}`, 'CONFLICT');
    if (kind === 'refund_confirmation' && !s.refundedAt) throw ApplicationFailure.nonRetryable(`checkout session ${token} was not refunded`, 'CONFLICT');
    if (kind === 'payment_held' && s.status !== 'ON_HOLD') throw ApplicationFailure.nonRetryable(`checkout session ${token} is ${s.status}, not on hold`, 'CONFLICT');
    return sendEmailOnce(s, kind, idempotencyKey, existing, { ...(await emailDataOf(s, kind)), hold: s.holdMessage });
  }

  /** One refund's email (the shopper's confirmation, or the merchant's store problem), once per refund. */
  async function sendRefundEmail(token: string, refundId: string, kind: RefundEmailKind): Promise<EmailSendResult> {
    const idempotencyKey = refundEmailIdempotencyKey(kind, token, refundId);
    const existing = await db.emailMessage.findUnique({ where: { idempotencyKey } });
    if (existing?.status === 'SENT') return { status: 'ALREADY_SENT', messageId: existing.providerMessageId };
    const refund = await db.refund.findFirst({ where: { id: refundId, token } });
    if (!refund) throw ApplicationFailure.nonRetryable(`No refund ${refundId} of checkout ${token}`, 'NOT_FOUND');
    if (refund.state !== 'succeeded') throw ApplicationFailure.nonRetryable(`The refund ${refundId} of ${token} is ${refund.state}, not done`, 'CONFLICT');
    if (kind === 'store_refund_problem' && refund.storeState !== 'failed') throw ApplicationFailure.nonRetryable(`The store booked the refund ${refundId}`, 'CONFLICT');
    const s = await sessionOf(token, true);
    const fmt = (minor: number) => formatMoney({ amount: minor, currency: s.currency }, moneyLocaleFor(kind, s.shopperLocale));
    // What stays paid after this refund and the ones before it (in the order they succeeded).
    const before = await db.refund.findMany({ where: { token, state: 'succeeded', OR: [{ succeededAt: { lt: refund.succeededAt ?? new Date() } }, { id: refund.id }] } });
    const refunded = before.reduce((n, r) => n + r.amountMinor, 0);
    const remaining = Math.max(0, (s.totalMinor ?? 0) - refunded);
    return sendEmailOnce(s, kind, idempotencyKey, existing, {
      ...(await emailDataOf(s, kind)),
      refund: { amount: fmt(refund.amountMinor), full: remaining === 0, remaining: fmt(remaining), reason: refund.origin === 'processor' ? null : refund.reason },
      problem: refund.storeError,
    });
  }

  /**
   * Renders `kind` from `data`, records it under `idempotencyKey` and sends it once; the timeline notes the send.
   * `existing`: the row of that key as the caller read it (not SENT), or null.
   */
  async function sendEmailOnce(s: Session, kind: OrderEmailKind, idempotencyKey: string, existing: EmailRow | null, data: OrderEmailData): Promise<EmailSendResult> {
    const { token } = s;
    const toShopper = SHOPPER_EMAILS.has(kind);
    const event = MERCHANT_NOTIFICATION_EVENT[kind];
    // The merchant's addresses as the notification settings name them; a notification switched off is not sent (nor recorded).
    const merchantTo = toShopper ? null : notificationRecipients(s.merchant, event ?? 'newOrder', { always: !event });
    if (!toShopper && !merchantTo) return { status: 'SWITCHED_OFF', messageId: null };
    const to = toShopper ? s.email : merchantTo!.join(', ');
    if (!to) throw ApplicationFailure.nonRetryable(`checkout session ${token} has no shopper email`, 'INVALID_INPUT');
    const rendered = renderOrderEmail(kind, data);
    const row = existing ?? (await recordEmail(db, { idempotencyKey, merchantId: s.merchantId, kind, to, subject: rendered.subject }));
    const result = await sendRecordedEmail(outbox, row, () => ({
      ...rendered,
      tag: kind,
      metadata: { token, kind },
      ...(toShopper ? { from: brandedSender(s.merchant.shopName), replyTo: s.merchant.email } : {}),
    }));
    if (result.status === 'SENT') await db.sessionEvent.create({ data: { token, type: 'email_sent', data: { kind, messageId: result.messageId } } });
    return result;
  }

  return classifyFailures({
    /**
     * The session's order on the merchant's store, exactly once: recorded, else found at the store by
     * session token, else created with idempotency key `checkout-<token>`. `created` is true only for the
     * call that created it.
     */
    /**
     * The session's order on its store, exactly once (find by token before creating, idempotency key). `paid`:
     * the workflow has the processor's success and writes COMPLETED alongside this call, so the stored status
     * may not say so yet.
     */
    async createStoreOrder(token: string, opts: { paid?: boolean } = {}): Promise<{ storeOrderId: string; created: boolean }> {
      const s = await sessionOf(token, opts.paid === true);
      if (s.storeOrderId) return { storeOrderId: s.storeOrderId, created: false };
      const { order, created } = await place(s, await storeOf(s), orderInputOf(s));
      await recordOrder(s, order, created);
      return { storeOrderId: order.id, created };
    },

    /**
     * The order of an accepted, paid upsell on the session's store, exactly once (its own key: the draft order
     * on the timeline for storefront A, lookup then idempotency key for storefront B).
     */
    async createUpsellStoreOrder(token: string, upsellId: string): Promise<{ storeOrderId: string; created: boolean }> {
      const purchase = await upsellPurchaseOf(token, upsellId);
      if (purchase.storeOrderId) return { storeOrderId: purchase.storeOrderId, created: false };
      if (purchase.status !== 'PAID' && purchase.status !== 'REFUNDED') throw ApplicationFailure.nonRetryable(`The upsell ${upsellId} of ${token} is ${purchase.status}, not paid`, 'CONFLICT');
      const s = await sessionOf(token);
      // The offer's payment read at the processor and judged as every order's is (domain/checkout/payment-check.ts): refunded,
      // disputed or another amount before its order, no order (the refusal below becomes the offer's store order error).
      if (purchase.processorPaymentId) {
        const { client } = await processorClientFor(deps, s.merchantId);
        const verdict = judgePayment(await client.getPayment(purchase.processorPaymentId), { amountMinor: purchase.amountMinor, currency: purchase.currency });
        if (verdict.verdict !== 'paid') {
          throw new IntegrationError('processor', 'rejected', verdict.verdict === 'held' ? verdict.message : 'The processor shows the offer\'s payment not paid: no order was created');
        }
      }
      const { order, created } = await place(s, await storeOf(s, upsellId), upsellOrderInputOf(s, purchase));
      await db.$transaction(async (tx) => {
        const { count } = await tx.upsellPurchase.updateMany({ where: { id: purchase.id, storeOrderId: null }, data: { storeOrderId: order.id, storeOrderNumber: order.number, storeOrderError: null } });
        if (count > 0) await tx.sessionEvent.create({ data: { token, type: 'upsell_order_created', data: { upsellId, storeOrderId: order.id, number: order.number, paid: order.paid, created } } });
      });
      return { storeOrderId: order.id, created };
    },

    /** The store refused an upsell's order for good: kept on the purchase and the timeline (shown to the merchant). */
    async recordUpsellStoreOrderFailure(token: string, upsellId: string, message: string): Promise<void> {
      const reason = message.slice(0, 1000);
      const purchase = await upsellPurchaseOf(token, upsellId);
      await db.$transaction(async (tx) => {
        const { count } = await tx.upsellPurchase.updateMany({ where: { id: purchase.id, storeOrderId: null, OR: [{ storeOrderError: null }, { storeOrderError: { not: reason } }] }, data: { storeOrderError: reason } });
        if (count > 0) await tx.sessionEvent.create({ data: { token, type: 'upsell_order_failed', data: { upsellId, message: reason } } });
      });
    },

    /** The shopper's confirmation of an accepted, paid upsell, once per upsell. */
    async sendUpsellConfirmation(token: string, upsellId: string): Promise<EmailSendResult> {
      const idempotencyKey = upsellEmailIdempotencyKey(token, upsellId);
      const existing = await db.emailMessage.findUnique({ where: { idempotencyKey } });
      if (existing?.status === 'SENT') return { status: 'ALREADY_SENT', messageId: existing.providerMessageId };
      const purchase = await upsellPurchaseOf(token, upsellId);
      if (purchase.status !== 'PAID') throw ApplicationFailure.nonRetryable(`The upsell ${upsellId} of ${token} is ${purchase.status}, not paid`, 'CONFLICT');
      const s = await sessionOf(token);
      const data = await emailDataOf(s, 'upsell_confirmation');
      const fmt = (minor: number) => formatMoney({ amount: minor, currency: purchase.currency }, moneyLocaleFor('upsell_confirmation', s.shopperLocale));
      const amount = fmt(purchase.amountMinor);
      return sendEmailOnce(s, 'upsell_confirmation', idempotencyKey, existing, {
        ...data,
        lines: [{ title: purchase.title, variantTitle: null, quantity: 1, amount }],
        shipping: { name: SHOPPER_EMAIL_LANGUAGES[shopperEmailLanguage(s.shopperLocale)].upsellShipping, amount: fmt(0) },
        subtotal: amount,
        discount: null,
        total: amount,
        payment: { method: 'card', reference: purchase.processorPaymentId },
      });
    },

    /**
     * The shopper's cart at the store emptied once the order is placed, on every paid path (card, nothing to pay, cash on
     * delivery): storefront A through the Storefront API (its cart is the online store's); storefront B's cart lives in
     * the shopper's WooCommerce session, which the plugin empties itself when the shopper comes back (it asks us whether
     * the checkout was paid). Noted on the timeline once.
     */
    async emptyStoreCart(token: string): Promise<{ removed: number; emptiedBy: 'service' | 'plugin' | 'none' }> {
      const s = await sessionOf(token);
      if (s.platform !== 'STOREFRONT_A') return { removed: 0, emptiedBy: 'plugin' };
      if (!s.storeCartRef) return { removed: 0, emptiedBy: 'none' };
      const client = await storeClientFor(deps, s.merchantId, 'STOREFRONT_A');
      const removed = await client.emptyCart(s.storeCartRef);
      if (removed > 0) await db.sessionEvent.create({ data: { token, type: 'store_cart_emptied', data: { lines: removed } } });
      return { removed, emptiedBy: 'service' };
    },

    /**
     * The store's tax on the checkout as the shopper entered it (after recordShopperDetails), quoted by the store itself
     * before anything is charged: Shopify's draftOrderCalculate on the very draft the order will be, WooCommerce's own
     * rules on its settings and rates. Added to the total when the store's prices exclude tax, so the amount charged is
     * the total the store books. Answers the quote the shopper pays.
     */
    async quoteStoreTaxes(token: string): Promise<PaymentQuote> {
      const s = await sessionOf(token, true);
      // The total before the store's tax: items + order bumps + shipping − discount, as recordShopperDetails priced it
      // (less a tax a retried attempt of this activity already added).
      const pre = (s.totalMinor ?? 0) - (s.taxesIncluded ? 0 : s.taxMinor);
      const taxed = await quoteStoreTaxes(deps, s.merchantId, { ...s, totalMinor: pre });
      if (pre > 0) {
        await db.$transaction(async (tx) => {
          await tx.checkoutSession.update({ where: { token }, data: { taxMinor: taxed.taxMinor, taxesIncluded: taxed.taxesIncluded, totalMinor: taxed.totalMinor } });
          if (taxed.taxMinor > 0) await tx.sessionEvent.create({ data: { token, type: 'taxes_quoted', data: { taxMinor: taxed.taxMinor, taxesIncluded: taxed.taxesIncluded, totalMinor: taxed.totalMinor, currency: s.currency } } });
        });
      }
      return { currency: s.currency, subtotalMinor: s.subtotalMinor, shippingMinor: s.shippingMinor ?? 0, discountMinor: s.discountMinor, ...taxed, totalMinor: pre > 0 ? taxed.totalMinor : (s.totalMinor ?? 0) };
    },

    /** The store refused the order for good: the paid session keeps the reason (shown to the merchant). */
    async recordStoreOrderFailure(token: string, message: string): Promise<void> {
      const reason = message.slice(0, 1000);
      await db.$transaction(async (tx) => {
        const { count } = await tx.checkoutSession.updateMany({ where: { token, storeOrderId: null, OR: [{ storeOrderError: null }, { storeOrderError: { not: reason } }] }, data: { storeOrderError: reason } });
        if (count > 0) await tx.sessionEvent.create({ data: { token, type: 'order_failed', data: { message: reason } } });
      });
    },

    /** The branded order-confirmed email to the shopper, once. */
    sendOrderConfirmation: (token: string) => sendOrderEmail(token, 'order_confirmation'),
    /** The new-order email to the merchant, once. */
    sendMerchantOrderNotification: (token: string) => sendOrderEmail(token, 'merchant_order_notification'),
    /** Tells the merchant the store refused the order and what to do, once. */
    sendStoreOrderProblemEmail: (token: string) => sendOrderEmail(token, 'store_order_problem'),
    /**
     * Tells the shopper of a refund, once per refund (after the processor confirmed it); without a refund id, the
     * legacy email of a full refund (histories recorded before partial refunds).
     */
    sendRefundConfirmation: (token: string, refundId?: string) => (refundId ? sendRefundEmail(token, refundId, 'refund_confirmation') : sendOrderEmail(token, 'refund_confirmation')),
    /** Tells the merchant of a refund the processor confirmed, once per refund, when the "Refund" notification is on. */
    sendMerchantRefundNotification: (token: string, refundId: string) => sendRefundEmail(token, refundId, 'merchant_refund_notification'),
    /** Tells the merchant the store refused to book a refund the processor made, once per refund. */
    sendStoreRefundProblemEmail: (token: string, refundId: string) => sendRefundEmail(token, refundId, 'store_refund_problem'),
    /** Tells the merchant a paid checkout is on hold and why, once. */
    sendPaymentHeldEmail: (token: string) => sendOrderEmail(token, 'payment_held'),

    /**
     * The store's side of a refund the processor made: booked on the store order once (each store client finds a refund
     * it already made by our refund id). No store order (held, or refused by the store): nothing to book. A store that
     * refuses for good leaves the refund `failed` there with its words (shown to the merchant, never hidden).
     */
    async createStoreRefund(token: string, refundId: string): Promise<{ state: 'created' | 'failed' | 'none'; storeRefundId: string | null }> {
      const refund = await db.refund.findFirst({ where: { id: refundId, token } });
      if (!refund) throw ApplicationFailure.nonRetryable(`No refund ${refundId} of checkout ${token}`, 'NOT_FOUND');
      if (refund.storeState !== 'pending') return { state: refund.storeState as 'created' | 'failed' | 'none', storeRefundId: refund.storeRefundId };
      if (refund.state !== 'succeeded') throw ApplicationFailure.nonRetryable(`The refund ${refundId} of ${token} is ${refund.state}: the store waits for the money to be back`, 'CONFLICT');
      const s = await sessionOf(token, true);
      // The refund's store state and the order's store status in one transaction: a page that reads the
      // refund booked must also read the store's new status (it stops following once the refund is booked).
      const mark = async (data: { storeState: string; storeRefundId?: string | null; storeError?: string | null }, event: string, eventData: Record<string, unknown>, storeOrderStatus?: string) => {
        await db.$transaction(async (tx) => {
          const { count } = await tx.refund.updateMany({ where: { id: refundId, storeState: 'pending' }, data });
          if (count === 0) return;
          await tx.sessionEvent.create({ data: { token, type: event, data: { refundId, ...eventData } as Prisma.InputJsonValue } });
          if (storeOrderStatus !== undefined) await tx.checkoutSession.update({ where: { token }, data: { storeOrderStatus } });
        });
      };
      if (!s.storeOrderId) {
        await mark({ storeState: 'none' }, 'store_refund_skipped', { why: s.storeOrderError ? 'the store refused the order' : 'no order was created on the store' });
        return { state: 'none', storeRefundId: null };
      }
      const lines = Array.isArray(refund.lines) ? (refund.lines as Array<{ line: number; quantity: number }>) : [];
      let made: StoreRefund;
      try {
        made = await (await storeOf(s)).refundOrder(s.storeOrderId, { refundId, amountMinor: refund.amountMinor, currency: refund.currency, reason: refund.reason, lines, restock: refund.restock });
      } catch (err) {
        if (isIntegrationError(err) && !err.retryable) {
          const message = refusal(err, STORE_LABEL[s.platform], 'refund').message.slice(0, 1000);
          await mark({ storeState: 'failed', storeError: message }, 'store_refund_failed', { message });
          return { state: 'failed', storeRefundId: null };
        }
        throw err;
      }
      await mark({ storeState: 'created', storeRefundId: made.id, storeError: null }, 'store_refund_created', { storeRefundId: made.id, amount: made.amountMinor, orderStatus: made.orderStatus }, made.orderStatus);
      return { state: 'created', storeRefundId: made.id };
    },

    /**
     * A COD order's payment as the store sees it (the merchant marks it paid in the store's backend): the
     * first time the store reports it paid, codPaidAt and a `cod_paid` timeline event are recorded.
     */
    async syncStoreOrderPayment(token: string): Promise<{ paid: boolean; codPaidAt: string | null }> {
      const s = await sessionOf(token);
      if (s.codPaidAt) return { paid: true, codPaidAt: s.codPaidAt.toISOString() };
      if (!s.storeOrderId || paymentMethodOf(s) !== 'cod') return { paid: false, codPaidAt: null };
      let order: StoreOrder;
      try {
        order = await (await storeOf(s)).getOrder(s.storeOrderId);
      } catch (err) {
        // Not connected, or its credentials refused: the merchant has to reconnect the store, nothing failed on our side.
        if (isIntegrationError(err, 'unauthorized')) {
          throw ApplicationFailure.nonRetryable(`${STORE_LABEL[s.platform]} cannot be asked about order ${s.storeOrderId}: ${err.message}`, 'CONFLICT');
        }
        if (isIntegrationError(err) && !err.retryable) {
          throw ApplicationFailure.nonRetryable(`${STORE_LABEL[s.platform]} could not be asked about order ${s.storeOrderId}: ${err.message}`, 'UPSTREAM_ERROR');
        }
        throw err;
      }
      if (!order.paid) return { paid: false, codPaidAt: null };
      const paidAt = new Date();
      await db.$transaction(async (tx) => {
        const { count } = await tx.checkoutSession.updateMany({ where: { token, codPaidAt: null }, data: { codPaidAt: paidAt } });
        if (count > 0) await tx.sessionEvent.create({ data: { token, type: 'cod_paid', data: { storeOrderId: order.id, storeStatus: order.status } } });
      });
      const row = await db.checkoutSession.findUniqueOrThrow({ where: { token }, select: { codPaidAt: true } });
      return { paid: true, codPaidAt: (row.codPaidAt ?? paidAt).toISOString() };
    },
  });
}

export type FulfilmentActivities = ReturnType<typeof createFulfilmentActivities>;
