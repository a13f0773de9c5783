// The merchant's orders (read side): the list with cursor pagination and filters, and one order with its
// whole timeline. PostgreSQL only, scoped to the caller's merchant by the token's merchant id. Refund and
// status sync (the write side, through the session's workflow) are in ./actions.ts.
//
// An order is a session from a store cart (never a preview) that reached the payment step: a card payment
// was started, or cash on delivery confirmed (or, without a recorded start, the session is paid, refunded or
// COD-confirmed, or held). So the list holds PAYMENT_PENDING, FAILED, COMPLETED, ON_HOLD, REFUNDED and COD_CONFIRMED
// sessions, and ABANDONED ones whose payment never came; shoppers who left before paying are in the funnel, not here.
// Each item carries its money as the status alone cannot say it: what was given back (a COMPLETED order with
// refundedMinor > 0 is partially refunded) and why a payment is held; both are columns of the row the list reads
// anyway, so the page stays one range read of (merchant_id, created_at).
// `view` splits them: paid orders apart from unpaid checkouts (domain/stats.ts ORDER_VIEWS).
import { isPaymentMethod, type PaymentMethod } from '../../../domain/checkout/payment-method.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { type RouteDeps } from '../../route-deps.js';
import type { Prisma } from '../../../prisma/client.js';
import type { CheckoutSession, EmailMessage, ProcessorWebhookDelivery, SessionEvent } from '../../../generated/prisma/client.js';
import { AppError } from '../../../domain/errors.js';
import { ORDER_VIEWS } from '../../../domain/stats.js';
import { isCheckoutStatus, ORDERED_STATUSES } from '../../../domain/checkout/checkout-status.js';
import { refundableMinor, refundRefusal } from '../../../domain/checkout/refunds.js';
import { isHoldReason } from '../../../domain/checkout/processor-events.js';
import { refundBalanceOf } from '../../../model/checkout/refunds.js';
import { isCheckoutToken } from '../../../domain/tokens.js';
import { formatMoney } from '../../../domain/money.js';
import { storeOrderOf } from '../../../domain/checkout/store-order.js';
import { orderEmailIdempotencyKey, refundEmailIdempotencyKey, upsellEmailIdempotencyKey } from '../../../model/checkout/order-emails.js';
import { type OrderEmailKind } from '../../../model/checkout/order-emails.js';
import { errorResponse } from '../../schemas/common.js';
import { tokenParams } from '../../schemas/checkout.js';
import { orderDetail, ordersPage, ordersQuery, type OrderFilters, type OrdersQuery, type timelineEntry } from '../../schemas/orders.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../schemas/pagination.js';
import { keysetPages } from '../../pagination.js';
import { sessionAddress, sessionBumpLines, sessionLines, type SessionLine } from '../../../model/checkout/checkout-session.js';

const tags = ['orders'];
const auth = { security: [{ bearerAuth: [] }] };
const noOrder = () => new AppError('NOT_FOUND', 'No such order');

/** The sessions that are orders (see the top of this file). */
export const ORDER_WHERE: Prisma.CheckoutSessionWhereInput = {
  source: { not: 'preview' },
  OR: [{ paymentStartedAt: { not: null } }, { status: { in: [...ORDERED_STATUSES] } }],
};

/** Emails of an order, by the idempotency key each is sent with (activities/checkout/checkout-fulfilment.ts). */
const ORDER_EMAIL_KINDS = ['order_confirmation', 'merchant_order_notification', 'store_order_problem', 'refund_confirmation', 'payment_held'] as const satisfies readonly OrderEmailKind[];

// The list's pages: keyed by (createdAt, token), newest first.
export const orderPages = keysetPages('token', isCheckoutToken);

/** LIKE pattern characters taken literally (a token contains `_`). */
const literal = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** The merchant's orders the filters select (the list's and the CSV export's: the same rows). */
/** The orders the filters select, within the merchant scope the query runs in (request.merchantData). */
export function filteredOrdersWhere(query: OrderFilters): Prisma.CheckoutSessionWhereInput {
  const and: Prisma.CheckoutSessionWhereInput[] = [ORDER_WHERE];
  if (query.view) and.push({ status: { in: [...ORDER_VIEWS[query.view]] } });
  if (query.status) and.push({ status: { in: query.status } });
  if (query.from || query.to) and.push({ createdAt: { ...(query.from ? { gte: query.from } : {}), ...(query.to ? { lt: query.to } : {}) } });
  if (query.paymentMethod === 'card' || query.paymentMethod === 'free') and.push({ paymentMethod: query.paymentMethod });
  // A COD order is one by its payment method, or by its status when an older row has no method recorded.
  if (query.paymentMethod === 'cod') and.push({ OR: [{ paymentMethod: 'cod' }, { status: 'COD_CONFIRMED' }] });
  if (query.q) {
    // An order number is searched with or without its "#" (storefront A names orders "#1001", storefront B "57").
    const number = literal(query.q.replace(/^#/, ''));
    and.push({
      OR: [
        { email: { startsWith: literal(query.q.toLowerCase()) } },
        { token: { startsWith: literal(query.q) } },
        { storeOrderNumber: { startsWith: number } },
        { storeOrderNumber: { startsWith: `#${number}` } },
      ],
    });
  }
  return { AND: and };
}

function listWhere(query: OrdersQuery): Prisma.CheckoutSessionWhereInput {
  return { AND: [filteredOrdersWhere(query), ...orderPages.after(query.cursor)] };
}

// ---------------------------------------------------------------------------------------------------
// Views.

type Summary = z.output<typeof ordersPage>['items'][number];
type Entry = z.output<typeof timelineEntry>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function paymentMethodOf(s: Pick<CheckoutSession, 'paymentMethod' | 'status'>): PaymentMethod | null {
  if (isPaymentMethod(s.paymentMethod)) return s.paymentMethod;
  return s.status === 'COD_CONFIRMED' ? 'cod' : null;
}

/** The name on the stored shipping address (validated when stored): read leniently, so one odd row never fails a list. */
export function customerNameOf(address: Prisma.JsonValue): string | null {
  const name = address && typeof address === 'object' && !Array.isArray(address) ? (address as Record<string, unknown>).name : undefined;
  return typeof name === 'string' && name.trim() !== '' ? name : null;
}

export function toOrderSummary(s: CheckoutSession): Summary {
  if (!isCheckoutStatus(s.status)) throw new Error(`session ${s.token} has an unknown status ${s.status}`);
  return {
    token: s.token,
    status: s.status,
    email: s.email,
    customerName: customerNameOf(s.shippingAddress),
    totals: { currency: s.currency, subtotalMinor: s.subtotalMinor, shippingMinor: s.shippingMinor, discountMinor: s.discountMinor, totalMinor: s.totalMinor },
    paymentMethod: paymentMethodOf(s),
    storeOrderId: s.storeOrderId,
    storeOrderError: s.storeOrderError !== null,
    storeOrder: storeOrderOf(s),
    codPaid: s.codPaidAt !== null,
    refundedMinor: s.refundedMinor,
    hold: s.status === 'ON_HOLD' && isHoldReason(s.holdReason) ? { reason: s.holdReason, message: s.holdMessage ?? '' } : null,
    createdAt: s.createdAt.toISOString(),
    paymentStartedAt: iso(s.paymentStartedAt),
    completedAt: iso(s.completedAt),
  };
}

const record = (v: Prisma.JsonValue): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function sessionEventSummary(e: SessionEvent, currency: string): string {
  const d = record(e.data);
  const amount = (key: string) => (typeof d[key] === 'number' ? formatMoney({ amount: d[key], currency: typeof d.currency === 'string' ? d.currency : currency }, 'en') : null);
  switch (e.type) {
    case 'created':
      return `Checkout created from the store cart${amount('subtotalMinor') ? ` (subtotal ${amount('subtotalMinor')})` : ''}`;
    case 'contact_entered':
      return 'The shopper entered their contact details';
    case 'shipping_chosen':
      return 'The shopper chose a shipping rate';
    case 'details_entered':
      return `The shopper's details were stored${amount('totalMinor') ? `: total ${amount('totalMinor')}` : ''}`;
    case 'payment_started':
      return `Card payment started${typeof d.attempt === 'number' ? ` (attempt ${d.attempt})` : ''}${amount('amount') ? `: ${amount('amount')}` : ''}`;
    case 'status_changed':
      return `Status ${String(d.from)} → ${String(d.to)}${typeof d.cause === 'string' ? ` (${d.cause})` : ''}`;
    case 'order_created':
      return `Order ${typeof d.number === 'string' && d.number ? d.number : String(d.storeOrderId)} ${d.created === false ? 'found' : 'created'} on the store`;
    case 'order_failed':
      return `The store refused the order: ${String(d.message)}`;
    case 'cod_confirmed':
      return 'Cash on delivery confirmed by the shopper';
    case 'cod_paid':
      return 'The store reports the cash-on-delivery order paid';
    case 'refund_requested':
      return `Refund ${({ processor: 'made at the processor', store: 'made in the store' } as Record<string, string>)[String(d.origin)] ?? 'requested at the processor'}${amount('amount') ? `: ${amount('amount')}` : ''}${typeof d.reason === 'string' && d.reason ? ` (${d.reason})` : ''}`;
    case 'refund_succeeded':
      return `The processor refunded ${amount('amount') ?? 'the payment'}`;
    case 'refund_failed':
      return `The refund failed at the processor${typeof d.reason === 'string' ? `: ${d.reason}` : ''}`;
    case 'store_refund_created':
      return `Refund${amount('amount') ? ` of ${amount('amount')}` : ''} booked on the store order${typeof d.orderStatus === 'string' ? ` (now ${d.orderStatus.replace(/_/g, ' ')})` : ''}`;
    case 'store_refund_failed':
      return `The store refused to book the refund: ${String(d.message)}`;
    case 'store_refund_not_refunded':
      return `A refund made in the store was not refunded at the processor: ${String(d.why)}`;
    case 'store_refund_skipped':
      return `Refund not booked on the store: ${String(d.why)}`;
    case 'payment_held':
      return `Payment on hold, no order created: ${String(d.message)}`;
    case 'email_sent':
      return `Email sent: ${String(d.kind)}`;
    case 'store_order_draft':
      return 'Draft order made on the store (it becomes the order)';
    case 'upsell_order_draft':
      return 'Draft order made on the store for an accepted offer';
    case 'upsell_order_created':
      return `Offer order ${typeof d.number === 'string' && d.number ? d.number : String(d.storeOrderId)} ${d.created === false ? 'found' : 'created'} on the store`;
    case 'upsell_payment':
      return `Offer payment ${String(d.from).toLowerCase()} → ${String(d.to).toLowerCase()}${amount('amount') ? `: ${amount('amount')}` : ''}`;
    case 'store_cart_emptied':
      return 'The shopper\'s cart on the store was emptied';
    case 'taxes_quoted':
      return `The store's tax${amount('taxMinor') ? `: ${amount('taxMinor')}` : ''}${d.taxesIncluded === true ? ' (included in the prices)' : ''}`;
    case 'nothing_to_pay':
      return 'Nothing to pay: completed without the processor';
    default:
      return e.type.replace(/_/g, ' ');
  }
}

function webhookSummary(w: Pick<ProcessorWebhookDelivery, 'event' | 'signatureValid' | 'rejection' | 'signalledAt'>): string {
  const what = `Processor webhook ${w.event ?? '(no event name)'}`;
  if (!w.signatureValid) return `${what}: signature invalid, ignored${w.rejection ? ` (${w.rejection})` : ''}`;
  if (w.rejection === 'duplicate') return `${what}: signature valid, a redelivery (applied once)`;
  if (w.rejection) return `${what}: signature valid, not applied (${w.rejection})`;
  return `${what}: signature valid, ${w.signalledAt ? 'applied' : 'not applied yet'}`;
}

const EMAIL_LABELS: Record<string, string> = {
  order_confirmation: 'Order confirmation to the shopper',
  merchant_order_notification: 'New-order notification to you',
  store_order_problem: 'Store order problem notice to you',
  refund_confirmation: 'Refund confirmation to the shopper',
  payment_held: 'Payment-on-hold notice to you',
  store_refund_problem: 'Store refund problem notice to you',
  merchant_refund_notification: 'Refund notification to you',
};

function emailSummary(m: EmailMessage): string {
  const label = EMAIL_LABELS[m.kind] ?? `Email ${m.kind}`;
  if (m.status === 'SENT') return `${label}: sent`;
  return `${label}: ${m.status === 'FAILED' ? 'failed' : 'not sent yet'}${m.error ? ` (${m.error})` : ''}`;
}

/**
 * The processor deliveries an order shows: those that verified with the secret of the session's merchant. On a Whop
 * account shared by several merchants every event is sent to each merchant's endpoint, signed with that endpoint's
 * secret, so one payment arrives once valid and once per other merchant with a signature that is not this merchant's;
 * those (and forgeries) stay in processor_webhook_deliveries as evidence and are shown to no merchant. A delivery
 * recorded for another merchant (verified with their secret) is theirs, whatever session it names.
 */
export function merchantDeliveries<T extends Pick<ProcessorWebhookDelivery, 'signatureValid' | 'merchantId'>>(session: Pick<CheckoutSession, 'merchantId'>, deliveries: T[]): T[] {
  return deliveries.filter((w) => w.signatureValid && w.merchantId === session.merchantId);
}

type Timed = Entry & { t: number; last: number };

/**
 * Repeated processor deliveries of one event with one outcome (redeliveries: Whop retries until it gets a 2xx, and
 * re-sends on request) become one line at the first, with their count and the last time. The first applied delivery
 * has its own outcome ("applied"), so it stays its own line beside the redeliveries.
 */
function collapseRepeats(entries: Timed[]): Timed[] {
  const out: Timed[] = [];
  const seen = new Map<string, Timed>();
  for (const e of entries) {
    if (e.source !== 'webhook') {
      out.push(e);
      continue;
    }
    const key = JSON.stringify([e.type, e.summary]);
    const first = seen.get(key);
    if (!first) {
      seen.set(key, e);
      out.push(e);
      continue;
    }
    first.count += 1;
    first.last = Math.max(first.last, e.t);
    first.lastAt = new Date(first.last).toISOString();
  }
  return out;
}

/**
 * The session's events, the merchant's own webhook deliveries and its emails, oldest first (ties keep that order),
 * repeated deliveries as one line.
 */
export function mergeTimeline(session: CheckoutSession, events: SessionEvent[], deliveries: Array<Omit<ProcessorWebhookDelivery, 'rawBody'>>, emails: EmailMessage[]): Entry[] {
  const emailKinds = new Set(emails.map((m) => m.kind));
  const entries: Timed[] = [];
  const push = (at: Date, entry: Omit<Entry, 'at' | 'count' | 'lastAt'>) =>
    entries.push({ ...entry, t: at.getTime(), last: at.getTime(), at: at.toISOString(), lastAt: at.toISOString(), count: 1 });
  for (const e of events) {
    // Shown from their own tables instead, with more: every delivery with its verification, every email with its state.
    if (e.type === 'webhook_received') continue;
    if (e.type === 'email_sent' && emailKinds.has(String(record(e.data).kind))) continue;
    push(e.at, { source: 'session', type: e.type, summary: sessionEventSummary(e, session.currency), data: record(e.data) });
  }
  for (const w of merchantDeliveries(session, deliveries)) {
    push(w.receivedAt, {
      source: 'webhook',
      type: w.event ?? 'unknown',
      summary: webhookSummary(w),
      data: { eventId: w.eventId, event: w.event, signatureValid: w.signatureValid, rejection: w.rejection, applied: w.signalledAt !== null, signalledAt: iso(w.signalledAt) },
    });
  }
  for (const m of emails) {
    push(m.sentAt ?? m.createdAt, {
      source: 'email',
      type: m.kind,
      summary: emailSummary(m),
      data: { kind: m.kind, to: m.to, subject: m.subject, status: m.status, providerMessageId: m.providerMessageId, error: m.error, queuedAt: m.createdAt.toISOString(), sentAt: iso(m.sentAt) },
    });
  }
  // Array.prototype.sort is stable: equal instants keep session, webhook, email order.
  return collapseRepeats(entries.sort((a, b) => a.t - b.t)).map(({ t: _t, last: _last, ...entry }) => entry);
}

// ---------------------------------------------------------------------------------------------------

export const ordersRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app) => {

  app.get('/orders', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'orders:read' },
    schema: {
      tags,
      summary: "The merchant's orders, newest first, with cursor pagination and filters",
      description:
        'An order is a checkout session from a store cart that reached payment: a card payment was started or cash on delivery confirmed ' +
        '(PAYMENT_PENDING, FAILED, COMPLETED, ON_HOLD, REFUNDED, COD_CONFIRMED, and ABANDONED after a payment that never came). Previews never appear. ' +
        `Page size: limit, default ${PAGE_SIZE_DEFAULT}, capped at ${PAGE_SIZE_MAX}; pass nextCursor as cursor for the next page (the same filters). ` +
        'view=orders: paid orders only (COMPLETED, COD_CONFIRMED, REFUNDED, ON_HOLD); view=checkouts: checkouts whose payment started and never came ' +
        '(PAYMENT_PENDING, FAILED, ABANDONED); without view, both. ' +
        'Filters combine: view, status (one or several), from/to on the creation time (from before to), paymentMethod, q (start of the email, ' +
        'of the store\'s order number with or without "#", or of the token). customerName is the name on the shipping address; ' +
        'storeOrder.number is the order\'s number as the store, the emails and the shopper\'s confirmation name it. ' +
        'A cursor is only valid as the API handed it out (INVALID_INPUT otherwise). ' +
        'storeOrder is the order on the store apart from the status (COMPLETED means the payment is confirmed; the store order follows): ' +
        'pending while it is being created (retried while the store is down), created with its id, or failed with the store\'s reason; ' +
        'storeOrderError is true when the store permanently refused the order of a paid session. ' +
        'refundedMinor: what the processor confirmed given back so far (a COMPLETED order with refundedMinor > 0 is partially refunded; ' +
        'REFUNDED is refunded in full); hold: why an ON_HOLD payment did not become a store order (reason and message), null otherwise.',
      ...auth,
      querystring: ordersQuery,
      response: { 200: ordersPage, 400: errorResponse, 401: errorResponse },
    },
  }, async (request) => {
    const query = request.query;
    const rows = await request.merchantData.checkoutSessions.findMany({
      where: listWhere(query),
      orderBy: orderPages.orderBy,
      take: orderPages.take(query.limit),
    });
    const { items, nextCursor } = orderPages.page(rows, query.limit);
    return { items: items.map(toOrderSummary), nextCursor };
  });

  app.get('/orders/:token', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'orders:read' },
    schema: {
      tags,
      summary: 'One order with its full timeline',
      description:
        'The order, its lines, address and payment references, and its timeline, oldest first: the session\'s own events (created, contact ' +
        'entered, shipping chosen, details stored, payment started, every status change, order created on the store or refused, COD ' +
        'confirmed or paid, refund requested), the processor webhook deliveries for the session that verified with your webhook secret ' +
        '(applied, not applied and why, redeliveries; repeats of one event and outcome as one line with count and lastAt), and every email of ' +
        'the order with its state. Deliveries whose signature is not yours (forgeries, or on a Whop account shared with other merchants their ' +
        'copies of the event) are stored as evidence and shown to no merchant. 404 NOT_FOUND for a token that is not one of your orders ' +
        '(another merchant\'s, a preview, a session that never reached payment).',
      ...auth,
      params: tokenParams,
      response: { 200: orderDetail, 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const { token } = request.params;
    if (!isCheckoutToken(token)) throw noOrder();
    const data = request.merchantData;
    const session = await data.checkoutSessions.findFirst({ where: { AND: [{ token }, ORDER_WHERE] } });
    if (!session) throw noOrder();
    const events = await data.sessionEvents.findMany({ where: { token }, orderBy: [{ at: 'asc' }] });
    const sentKinds = events.filter((e) => e.type === 'email_sent').map((e) => String(record(e.data).kind));
    const upsells = await data.upsellPurchases.findMany({ where: { token }, orderBy: [{ createdAt: 'asc' }] });
    const refunds = await data.refunds.findMany({ where: { token }, orderBy: [{ createdAt: 'asc' }] });
    const keys = [
      ...[...new Set<string>([...ORDER_EMAIL_KINDS, ...sentKinds])].filter((kind) => kind !== 'upsell_confirmation').map((kind) => orderEmailIdempotencyKey(kind as OrderEmailKind, token)),
      ...upsells.map((u) => upsellEmailIdempotencyKey(token, u.upsellId)),
      ...refunds.flatMap((r) => (['refund_confirmation', 'store_refund_problem', 'merchant_refund_notification'] as const).map((kind) => refundEmailIdempotencyKey(kind, token, r.id))),
    ];
    const [deliveries, emails] = await Promise.all([
      data.processorWebhookDeliveries.findMany({ where: { sessionToken: token, signatureValid: true }, orderBy: [{ receivedAt: 'asc' }], omit: { rawBody: true } }),
      data.emailMessages.findMany({ where: { idempotencyKey: { in: keys } }, orderBy: [{ createdAt: 'asc' }] }),
    ]);
    const lines = (stored: SessionLine[], orderBump: boolean) =>
      stored.map((i) => ({ title: i.title, variantTitle: i.variantTitle, quantity: i.quantity, unitPrice: i.unitPrice, orderBump }));
    return {
      ...toOrderSummary(session),
      platform: session.platform === 'STOREFRONT_A' ? ('storefront-a' as const) : ('storefront-b' as const),
      items: [...lines(sessionLines(session.items), false), ...lines(sessionBumpLines(session.orderBumps), true)],
      shippingAddress: sessionAddress(session.shippingAddress),
      billingAddress: sessionAddress(session.billingAddress, 'billing address'),
      shippingName: session.shippingName,
      discountCode: session.discountCode,
      processorPaymentId: session.processorPaymentId,
      storeOrderErrorMessage: session.storeOrderError,
      refundRequestedAt: iso(session.refundRequestedAt),
      refundedAt: iso(session.refundedAt),
      refundableMinor: isCheckoutStatus(session.status) && !refundRefusal(refundBalanceOf(session, refunds))
        ? refundableMinor(refundBalanceOf(session, refunds))
        : 0,
      refunds: refunds.map((r) => ({
        id: r.id, amount: r.amountMinor, currency: r.currency, reason: r.reason, restock: r.restock,
        lines: Array.isArray(r.lines) ? (r.lines as Array<{ line: number; quantity: number }>) : [],
        origin: r.origin as 'merchant' | 'processor' | 'store', state: r.state as 'requested' | 'succeeded' | 'failed', failureReason: r.failureReason, processorRefundId: r.processorRefundId,
        store: { state: r.storeState as 'pending' | 'created' | 'failed' | 'none', refundId: r.storeRefundId, error: r.storeError },
        createdAt: r.createdAt.toISOString(), succeededAt: iso(r.succeededAt),
      })),
      storeOrderStatus: session.storeOrderStatus,
      upsells: upsells.map((u) => ({
        upsellId: u.upsellId,
        title: u.title,
        amount: u.amountMinor,
        currency: u.currency,
        status: u.status.toLowerCase() as 'pending' | 'paid' | 'failed' | 'refunded',
        failureReason: u.failureReason,
        processorPaymentId: u.processorPaymentId,
        storeOrderId: u.storeOrderId,
        storeOrderError: u.storeOrderError,
        acceptedAt: u.createdAt.toISOString(),
        paidAt: iso(u.paidAt),
      })),
      timeline: mergeTimeline(session, events, deliveries, emails),
    };
  });
};
