// The texts of the emails that follow a paid checkout: the shopper's order confirmation (in the merchant's
// branding), the merchant's new-order notification, the merchant's alert when the store refused the
// order, the shopper's refund confirmation, and the shopper's confirmation of an accepted post-purchase upsell. Amounts arrive formatted; every interpolated value is
// escaped for HTML. The order is named by the store's number everywhere; what the shopper reads carries no internal
// id (no processor payment or checkout ids, no session token). What the shopper gets is in their language (the one
// recorded with their details, domain/shopper-emails; English when it is none of the six), countries named in it;
// the merchant's emails are English.
import { countryName, escapeHtml, type RenderedEmail } from '../email/account-email-templates.js';
import { fillMessage } from '../../domain/checkout/checkout-messages/fill.js';
import { EN, SHOPPER_EMAIL_LANGUAGES, shopperEmailLanguage, type ShopperEmailKey, type ShopperEmailWords } from '../../domain/checkout/shopper-emails/index.js';

import type { OrderEmailKind } from '../../model/checkout/order-emails.js';
import type { PaymentMethod } from '../../domain/checkout/payment-method.js';

export interface OrderEmailData {
  shop: { name: string; logoUrl: string | null; primaryColor: string | null };
  /** What shopper and merchant call the order: the store's number ("#1001"), or the checkout reference while the store has none. */
  reference: string;
  storeOrderId: string | null;
  /** The store's platform as the merchant knows it, e.g. "Shopify". */
  storeLabel: string;
  /** The checkout session token (merchant emails only: it finds the session in the dashboard). */
  token: string;
  /** addressLines: the address without its country; country: its ISO code, named in `locale` where the address shows. */
  customer: { email: string; name: string; addressLines: string[]; country?: string | null };
  /** The billing address when the shopper gave one apart from the shipping address (same shape); null or absent: billed to the shipping address. */
  billing?: { name: string; addressLines: string[]; country?: string | null } | null;
  /** The shopper's language (BCP 47, recorded at payment); null or absent: English. */
  locale?: string | null;
  lines: Array<{ title: string; variantTitle: string | null; quantity: number; amount: string }>;
  shipping: { name: string; amount: string };
  subtotal: string;
  /** A discount code taken off the subtotal (shown as a minus line); null or absent for none. */
  discount?: { code: string; amount: string } | null;
  total: string;
  payment: { method: PaymentMethod; reference: string | null };
  /** Why the store refused the order (store_order_problem), or the refund (store_refund_problem). */
  problem?: string | null;
  /** A refund (refund_confirmation, store_refund_problem): its amount, whether it completes the refund of the order, what stays paid. */
  refund?: { amount: string; full: boolean; remaining: string; reason: string | null } | null;
  /** Why a paid checkout was held instead of becoming an order (payment_held). */
  hold?: string | null;
}

const DEFAULT_COLOR = '#111111';
const colorOf = (c: string | null) => (c && /^#[0-9a-f]{6}$/i.test(c) ? c : DEFAULT_COLOR);
const isWebUrl = (u: string | null): u is string => !!u && /^https?:\/\//i.test(u);
const lineLabel = (l: OrderEmailData['lines'][number]) => (l.variantTitle ? `${l.title} (${l.variantTitle})` : l.title);
/** Subjects are one line: whatever the shop or shopper typed, no line breaks reach the header. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** `lang`: the language the email is written in (the shopper's, or English for the merchant). */
function layout(d: OrderEmailData, title: string, body: string, lang = 'en'): string {
  const color = colorOf(d.shop.primaryColor);
  const header = isWebUrl(d.shop.logoUrl)
    ? `<img src="${escapeHtml(d.shop.logoUrl)}" alt="${escapeHtml(d.shop.name)}" style="max-height:60px">`
    : `<div style="font-size:22px;font-weight:600;color:${color}">${escapeHtml(d.shop.name)}</div>`;
  return `<!doctype html><html lang="${lang}"><body style="font-family:system-ui,sans-serif;background:#f6f6f7;padding:24px;color:#222">
<div style="max-width:560px;margin:auto;background:#fff;border-radius:8px;padding:28px;border-top:4px solid ${color}">
${header}
<h1 style="font-size:20px;margin:20px 0 12px">${escapeHtml(title)}</h1>
${body}
</div></body></html>`;
}

const p = (text: string) => `<p style="line-height:1.5">${escapeHtml(text)}</p>`;

/** The shopper's words for `d`, with values filled in. */
const wordsFor = (d: OrderEmailData) => SHOPPER_EMAIL_LANGUAGES[shopperEmailLanguage(d.locale)];
const say = (words: ShopperEmailWords, key: ShopperEmailKey, values: Record<string, string> = {}) => fillMessage(words[key], values);

function summaryHtml(d: OrderEmailData, words: ShopperEmailWords = EN): string {
  const row = (label: string, amount: string, strong = false) =>
    `<tr><td style="padding:6px 0${strong ? ';font-weight:600' : ''}">${escapeHtml(label)}</td><td style="padding:6px 0;text-align:right${strong ? ';font-weight:600' : ''}">${escapeHtml(amount)}</td></tr>`;
  const lines = d.lines.map((l) => row(`${l.quantity} × ${lineLabel(l)}`, l.amount)).join('\n');
  return `<table style="width:100%;border-collapse:collapse;margin:16px 0">
${lines}
<tr><td colspan="2" style="border-top:1px solid #e3e3e3"></td></tr>
${row(say(words, 'subtotal'), d.subtotal)}
${d.discount ? row(say(words, 'discount', { code: d.discount.code }), `−${d.discount.amount}`) : ''}
${row(say(words, 'shipping', { name: d.shipping.name }), d.shipping.amount)}
${row(say(words, 'total'), d.total, true)}
</table>`;
}

function summaryText(d: OrderEmailData, words: ShopperEmailWords = EN): string {
  return [
    ...d.lines.map((l) => `${l.quantity} × ${lineLabel(l)}: ${l.amount}`),
    `${say(words, 'subtotal')}: ${d.subtotal}`,
    ...(d.discount ? [`${say(words, 'discount', { code: d.discount.code })}: −${d.discount.amount}`] : []),
    `${say(words, 'shipping', { name: d.shipping.name })}: ${d.shipping.amount}`,
    `${say(words, 'total')}: ${d.total}`,
  ].join('\n');
}

type Party = { name: string; addressLines: string[]; country?: string | null };
/** The recipient, the address lines and the country named in the shopper's language. */
const linesOf = (a: Party, locale: string | null | undefined) => [a.name, ...a.addressLines, ...(a.country ? [countryName(a.country, locale)] : [])];
const block = (heading: string, lines: string[]) =>
  `<h2 style="font-size:15px;margin:20px 0 6px">${escapeHtml(heading)}</h2><p style="line-height:1.5;margin:0">${lines.map(escapeHtml).join('<br>')}</p>`;
/** The shipping address, then the billing address when the shopper gave one apart (headings in the email's language). */
const addressHtml = (heading: string, d: OrderEmailData, billingHeading = 'Billing address') =>
  [block(heading, linesOf(d.customer, d.locale)), ...(d.billing ? [block(billingHeading, linesOf(d.billing, d.locale))] : [])].join('\n');
const addressText = (heading: string, d: OrderEmailData, billingHeading = 'Billing address') =>
  [`${heading}:\n${linesOf(d.customer, d.locale).join('\n')}`, ...(d.billing ? [`${billingHeading}:\n${linesOf(d.billing, d.locale).join('\n')}`] : [])].join('\n\n');

function shopperPaymentSentence(d: OrderEmailData, words: ShopperEmailWords): string {
  if (d.payment.method === 'cod') return say(words, 'paidCod', { total: d.total });
  if (d.payment.method === 'free') return say(words, 'paidNothing');
  return say(words, 'paidCard', { total: d.total });
}

function merchantPaymentSentence(d: OrderEmailData): string {
  if (d.payment.method === 'cod') return `Cash on delivery: collect ${d.total} on delivery, then mark the order paid in your store.`;
  if (d.payment.method === 'free') return `Nothing to pay: the order's total is ${d.total}${d.discount ? ` (code ${d.discount.code})` : ''}, so no payment was taken.`;
  return `Paid by card: ${d.total}${d.payment.reference ? ` (payment ${d.payment.reference})` : ''}.`;
}

function orderConfirmation(d: OrderEmailData): RenderedEmail {
  const words = wordsFor(d);
  const values = { name: d.customer.name, reference: d.reference, shop: d.shop.name };
  const intro = say(words, 'orderIntro', values);
  const payment = shopperPaymentSentence(d, words);
  const outro = say(words, 'orderOutro', values);
  const shipTo = say(words, 'shippingTo');
  return {
    subject: oneLine(say(words, 'orderSubject', values)),
    html: layout(d, say(words, 'orderTitle', values), [p(intro), p(payment), summaryHtml(d, words), addressHtml(shipTo, d, say(words, 'billingTo')), p(outro)].join('\n'), shopperEmailLanguage(d.locale)),
    text: [intro, payment, summaryText(d, words), addressText(shipTo, d, say(words, 'billingTo')), outro].join('\n\n') + '\n',
  };
}

function merchantFacts(d: OrderEmailData): string[] {
  return [
    `Customer: ${d.customer.name} <${d.customer.email}>`,
    `Order in your store (${d.storeLabel}): ${d.storeOrderId ? `${d.reference}, id ${d.storeOrderId}` : 'not created'}`,
    `Checkout session: ${d.token}`,
  ];
}

function merchantOrderNotification(d: OrderEmailData): RenderedEmail {
  const intro = `You have a new order ${d.reference} for ${d.total} from ${d.customer.name}.`;
  const payment = merchantPaymentSentence(d);
  const facts = merchantFacts(d);
  return {
    subject: oneLine(`New order ${d.reference}: ${d.total} from ${d.customer.name}`),
    html: layout(d, `New order ${d.reference}`, [p(intro), p(payment), ...facts.map(p), summaryHtml(d), addressHtml('Ship to', d)].join('\n')),
    text: [intro, payment, facts.join('\n'), summaryText(d), addressText('Ship to', d)].join('\n\n') + '\n',
  };
}

function storeOrderProblem(d: OrderEmailData): RenderedEmail {
  const intro = `Your store (${d.storeLabel}) refused to create the order of ${d.customer.name} <${d.customer.email}> for ${d.total}. The checkout itself succeeded and is kept: nothing is lost.`;
  const reason = `What the store answered: ${d.problem ?? 'no reason given'}`;
  const payment = merchantPaymentSentence(d);
  const steps = [
    'What to do:',
    '1. Fix the cause above (for example reconnect the store in your dashboard, or restore a product that was deleted).',
    '2. Create this order in your store by hand with the details below, so it can be shipped.',
    `3. The customer has ${d.payment.method === 'cod' ? 'chosen cash on delivery' : 'already paid'}: do not charge them again.`,
  ];
  return {
    subject: oneLine(`Action needed: an order for ${d.total} could not be created in your store`),
    html: layout(
      d,
      'An order could not be created in your store',
      [p(intro), p(reason), p(payment), `<p style="line-height:1.5">${steps.map(escapeHtml).join('<br>')}</p>`, ...merchantFacts(d).map(p), summaryHtml(d), addressHtml('Ship to', d)].join('\n'),
    ),
    text: [intro, reason, payment, steps.join('\n'), merchantFacts(d).join('\n'), summaryText(d), addressText('Ship to', d)].join('\n\n') + '\n',
  };
}

/** The shopper's money is back: this refund's amount, to the card that paid; a partial refund says what stays paid. */
function refundConfirmation(d: OrderEmailData): RenderedEmail {
  const r = d.refund ?? { amount: d.total, full: true, remaining: '', reason: null };
  const words = wordsFor(d);
  const values = { name: d.customer.name, reference: d.reference, shop: d.shop.name, amount: r.amount, remaining: r.remaining };
  const intro = say(words, r.full ? 'refundIntro' : 'partialRefundIntro', values);
  const amount = say(words, 'refundAmount', values);
  const why = r.reason ? say(words, 'refundReason', { reason: r.reason }) : null;
  const rest = r.full ? null : say(words, 'refundRest', values);
  const outro = say(words, 'refundOutro', values);
  const parts = [intro, amount, why, rest].filter((x): x is string => x !== null);
  return {
    subject: oneLine(say(words, r.full ? 'refundSubject' : 'partialRefundSubject', values)),
    html: layout(d, say(words, r.full ? 'refundTitle' : 'partialRefundTitle', values), [...parts.map(p), summaryHtml(d, words), p(outro)].join('\n'), shopperEmailLanguage(d.locale)),
    text: [...parts, summaryText(d, words), outro].join('\n\n') + '\n',
  };
}

/** A payment the service will not turn into an order as it stands: the merchant decides (the money is not in doubt, the order is). */
function paymentHeld(d: OrderEmailData): RenderedEmail {
  const intro = `A checkout of ${d.customer.name} <${d.customer.email}> for ${d.total} was paid at the processor, but no order was created in your store.`;
  const reason = `Why: ${d.hold ?? 'the payment did not match the checkout'}`;
  const steps = [
    'What to do:',
    '1. Open the order in your dashboard: its timeline shows what the processor reported.',
    '2. Refund the payment there, or create the order in your store by hand if you accept the payment as it is.',
  ];
  return {
    subject: oneLine(`Action needed: a payment of ${d.total} is on hold (no order created)`),
    html: layout(d, 'A payment is on hold', [p(intro), p(reason), `<p style="line-height:1.5">${steps.map(escapeHtml).join('<br>')}</p>`, ...merchantFacts(d).map(p), summaryHtml(d), addressHtml('Ship to', d)].join('\n')),
    text: [intro, reason, steps.join('\n'), merchantFacts(d).join('\n'), summaryText(d), addressText('Ship to', d)].join('\n\n') + '\n',
  };
}

/** The processor refunded the shopper, the store refused to book it: the merchant fixes the store's order by hand. */
function storeRefundProblem(d: OrderEmailData): RenderedEmail {
  const amount = d.refund?.amount ?? d.total;
  const intro = `The refund of ${amount} for order ${d.reference} went back to ${d.customer.name}'s card, but your store (${d.storeLabel}) refused to record it on the order.`;
  const reason = `What the store answered: ${d.problem ?? 'no reason given'}`;
  const steps = ['What to do:', `1. Record the refund of ${amount} on order ${d.reference} in your store by hand (do not refund the card again: the money is back already).`, '2. Restock the returned items if needed.'];
  return {
    subject: oneLine(`Action needed: a refund of ${amount} is not recorded on order ${d.reference}`),
    html: layout(d, 'A refund is not recorded in your store', [p(intro), p(reason), `<p style="line-height:1.5">${steps.map(escapeHtml).join('<br>')}</p>`, ...merchantFacts(d).map(p)].join('\n')),
    text: [intro, reason, steps.join('\n'), merchantFacts(d).join('\n')].join('\n\n') + '\n',
  };
}

/** The merchant's notice of a refund the processor confirmed (notification setting "Refund"): how much, why, what stays paid. */
function merchantRefundNotification(d: OrderEmailData): RenderedEmail {
  const r = d.refund ?? { amount: d.total, full: true, remaining: '', reason: null };
  const intro = `${r.full ? 'Order' : 'Part of order'} ${d.reference} was refunded: ${r.amount} went back to ${d.customer.name} <${d.customer.email}>.`;
  const rest = r.full ? 'Nothing of the order stays paid.' : `${r.remaining} of the order stays paid.`;
  const why = r.reason ? `Reason given: ${r.reason}` : null;
  const parts = [intro, rest, why].filter((x): x is string => x !== null);
  return {
    subject: oneLine(`Refund of ${r.amount} on order ${d.reference}`),
    html: layout(d, r.full ? 'An order was refunded' : 'An order was refunded in part', [...parts.map(p), ...merchantFacts(d).map(p)].join('\n')),
    text: [...parts, merchantFacts(d).join('\n')].join('\n\n') + '\n',
  };
}

/** A post-purchase offer the shopper accepted: charged on the card of the order, shipped with it. */
function upsellConfirmation(d: OrderEmailData): RenderedEmail {
  const titles = d.lines.map(lineLabel).join(', ');
  const words = wordsFor(d);
  const values = { name: d.customer.name, reference: d.reference, shop: d.shop.name, titles, total: d.total };
  const intro = say(words, 'upsellIntro', values);
  const payment = say(words, 'upsellCharged', values);
  const outro = say(words, 'upsellOutro', values);
  const shipTo = say(words, 'shippingTo');
  return {
    subject: oneLine(say(words, 'upsellSubject', values)),
    html: layout(d, say(words, 'upsellTitle'), [p(intro), p(payment), summaryHtml(d, words), addressHtml(shipTo, d, say(words, 'billingTo')), p(outro)].join('\n'), shopperEmailLanguage(d.locale)),
    text: [intro, payment, summaryText(d, words), addressText(shipTo, d, say(words, 'billingTo')), outro].join('\n\n') + '\n',
  };
}

const RENDERERS: Record<OrderEmailKind, (d: OrderEmailData) => RenderedEmail> = {
  upsell_confirmation: upsellConfirmation,
  order_confirmation: orderConfirmation,
  merchant_order_notification: merchantOrderNotification,
  store_order_problem: storeOrderProblem,
  refund_confirmation: refundConfirmation,
  payment_held: paymentHeld,
  store_refund_problem: storeRefundProblem,
  merchant_refund_notification: merchantRefundNotification,
};

export function renderOrderEmail(kind: OrderEmailKind, data: OrderEmailData): RenderedEmail {
  return RENDERERS[kind](data);
}
