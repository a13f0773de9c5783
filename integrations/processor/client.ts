// Our client of the processor, Whop (API v1), built on the official SDK @whop/sdk 0.0.42 (docs/processor.md maps
// every call to Whop's documentation). The SDK owns the wire format (paths, Bearer auth, Api-Version-Date, query
// encoding); this module owns what the service needs from it: integer minor units and ISO currencies in, Whop's
// decimals and lowercase codes out; an Idempotency-Key header on every POST (the SDK's own idempotency option is
// never sent); each answer checked against the fields we use; every failure an IntegrationError of system
// 'processor' by HTTP status (401/403 'unauthorized', a time-out 'timeout', 429 'rate_limited' with its
// Retry-After, 5xx 'unavailable'). The SDK's own retries are off: Temporal retries the activity, with the same key.
import Whop from '@whop/sdk';
import { z } from 'zod';
import { currencyExponent } from '../../domain/money.js';
import { IntegrationError } from '../errors.js';
import { kindForStatus } from '../http.js';
import {
  accountSchema, checkoutConfigurationSchema, createdWebhookSchema, membershipSchema, paymentMethodSchema, paymentSchema, planSchema, productSchema, refundSchema, type WhopMembership,
  type WhopPayment,
} from './schemas.js';
import { companyPageSchema, disputeSchema, domainListSchema, domainSchema } from './schemas.js';
import { isKnownCurrency } from '../../domain/money.js';

export const PROCESSOR_SYSTEM = 'processor';

export interface ProcessorClientOptions {
  apiKey: string;
  /** Whop's API base, e.g. https://api.whop.com/api/v1 (the sandbox: http://127.0.0.1:4010/api/v1). */
  baseUrl: string;
  /** Per-call time-out in ms (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Where a payment stands for us: paid, failed, refunded in full, or still pending. */
export type PaymentState = 'paid' | 'failed' | 'refunded' | 'pending';

export interface Payment {
  id: string;
  state: PaymentState;
  /** Whop's own words, for logs and the merchant. */
  status: string | null;
  substatus: string | null;
  amountMinor: number;
  /** ISO 4217, upper case. */
  currency: string;
  metadata: Record<string, string>;
  checkoutId: string | null;
  memberId: string | null;
  paymentMethodId: string | null;
  membershipId: string | null;
  billingReason: string | null;
  failureMessage: string | null;
  /** The newest refund that did not fail (`rf_…`), if any. */
  refundId: string | null;
  /** Refunded so far (Whop's refunded_amount), in minor units. */
  refundedMinor: number;
  /** A dispute or chargeback is open or lost, or the bank warned of one (substatus, dispute_alerted_at). */
  disputed: boolean;
}

/** A refund of a payment (Whop's Refund, `rf_…`): its amount and where it stands. */
export interface Refund {
  id: string;
  paymentId: string;
  amountMinor: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** pending, requires_action, succeeded, failed or canceled (Whop's RefundStatus). */
  status: string;
  createdAt: string;
}

/** A payment method Whop keeps for a member's later charges without them (`payt_…`). */
export interface SavedPaymentMethod {
  id: string;
  /** card, sepa_debit, … (Whop's PaymentMethodTypes). */
  type: string | null;
  createdAt: string | null;
}

export interface Membership {
  id: string;
  status: string;
  /** Access now: active or trialing (canceling keeps access until the period ends). */
  valid: boolean;
  cancelAtPeriodEnd: boolean;
  periodStart: string | null;
  periodEnd: string | null;
  metadata: Record<string, string>;
  planId: string | null;
}

export interface Checkout {
  id: string;
  /** Where the buyer pays (Whop's hosted checkout). */
  purchaseUrl: string;
}

/** A DNS record Whop asks for (whop_sdk/types/domain_dns_record.py: TXT, CNAME, A or AAAA). */
export interface DomainDnsRecord {
  type: string;
  name: string;
  value: string;
}

/** What Whop says needs doing for a capability (whop_sdk/types/domain_issue.py). */
export interface DomainIssue {
  /** apple_pay, verification, … */
  capability: string;
  /** A stable code, e.g. apple_pay_unverified. */
  code: string;
  /** "What needs attention and how to fix it", as Whop wrote it. */
  message: string;
  /** "Code to add to the site to fix the issue, ready to copy", or null. */
  codeBlock: string | null;
  dnsRecords: DomainDnsRecord[];
}

/**
 * A hostname on the merchant's Whop company (Whop's Domain, `dom_…`) and its Apple Pay capability. `applePay`: null when
 * not enrolled (or not visible to the key); `pending` while Whop registers it with Apple, `ready` once Apple verified
 * it (the embedded checkout offers Apple Pay there), `action_required` when Apple could not (its issues say how to fix
 * it), `releasing` while Whop removes it from Apple.
 */
export interface CheckoutDomain {
  id: string;
  hostname: string;
  applePay: string | null;
  issues: DomainIssue[];
}

/** A one-time price: integer minor units in an ISO currency, booked on a product. */
export interface OneTimePrice {
  productId: string;
  amountMinor: number;
  currency: string;
  title: string;
}

export interface ProcessorClient {
  /** The key check: the company (Business ID, `biz_…`) the API key belongs to. */
  getAccount(): Promise<{ id: string; title: string | null }>;
  createProduct(input: { companyId: string; title: string }, idempotencyKey: string): Promise<{ id: string }>;
  /** Registers an endpoint for these events; the secret is only ever in this answer. */
  /**
   * `refusedEvents`: names Whop refused with a 400 naming them; the endpoint was then registered once without them
   * (a refusal of every name we asked for, or one naming none of them, is thrown as it came).
   */
  createWebhook(input: { companyId: string; url: string; events: readonly string[] }, idempotencyKey: string): Promise<{ id: string; secret: string; refusedEvents: string[] }>;
  deleteWebhook(webhookId: string): Promise<void>;
  /** A hosted checkout for a one-time price, or for an existing plan. `metadata` is copied onto its payment and membership. */
  /** `wallets: false`: Apple Pay and Google Pay not offered on Whop's page; otherwise Whop's defaults (which offer them). */
  createCheckout(input: ({ price: OneTimePrice } | { planId: string }) & { metadata: Record<string, string>; redirectUrl: string; wallets?: boolean }, idempotencyKey: string): Promise<Checkout>;
  getPayment(paymentId: string): Promise<Payment>;
  /** The payments made through these checkouts, newest first. */
  listPayments(input: { companyId: string; checkoutIds: readonly string[] }): Promise<Payment[]>;
  /** Refunds `amount` (in the payment's currency; undefined: what is left of it); answers the payment (its refund may settle later). */
  refundPayment(paymentId: string, idempotencyKey: string, amount?: { amountMinor: number; currency: string }): Promise<Payment>;
  /** Every refund of a payment, whatever made it (our API calls, the merchant in Whop's dashboard), newest first. */
  listRefunds(paymentId: string): Promise<Refund[]>;
  /**
   * The member's payment methods saved for off-session charges (Whop: setup mode, or the embedded checkout with
   * setupFutureUsage: "off_session"; a card paid on the hosted page in payment mode is not among them).
   */
  listSavedPaymentMethods(memberId: string): Promise<SavedPaymentMethod[]>;
  /**
   * The newest payment of `productId` created after `createdAfter` whose metadata holds every pair of `metadata`, if any:
   * how a charge whose answer was lost is found again (Whop filters by product and time; the metadata is matched here).
   */
  findPayment(input: { companyId: string; productId: string; createdAfter: Date; metadata: Record<string, string> }): Promise<Payment | null>;
  /** Charges a member's saved payment method off-session; answers the payment at once, settled later (webhook or getPayment). */
  chargeSavedMethod(input: { companyId: string; memberId: string; paymentMethodId: string; price: OneTimePrice; metadata: Record<string, string> }, idempotencyKey: string): Promise<Payment>;
  /** A renewal plan Whop bills every `billingPeriodDays` itself. */
  createRenewalPlan(input: { companyId: string; productId: string; title: string; amountMinor: number; currency: string; billingPeriodDays: number }, idempotencyKey: string): Promise<{ id: string }>;
  getMembership(membershipId: string): Promise<Membership>;
  /** Ends the membership at its period's end (no further renewal). */
  cancelMembership(membershipId: string): Promise<Membership>;
  /**
   * One page of the company's refunds created after `createdAfter`, oldest first (the processor sweep: a refund whose
   * webhook was lost). `after`: the previous page's cursor, with the same createdAfter.
   */
  listCompanyRefunds(input: CompanyListQuery): Promise<ListPage<Refund>>;
  /** One page of the company's disputes created after `createdAfter`, oldest first (the processor sweep). */
  listCompanyDisputes(input: CompanyListQuery): Promise<ListPage<Dispute>>;
  /** One dispute as it stands now (the processor sweep: a dispute whose dispute.updated may have been lost). */
  getDispute(disputeId: string): Promise<Dispute>;
  /** The company's domain `hostname` (GET /domains?account_id&domain), if it has one. */
  findDomain(input: { companyId: string; hostname: string }): Promise<CheckoutDomain | null>;
  /** Adds `hostname` to the company with Apple Pay (POST /domains { domain, account_id, apple_pay: {} }). */
  createDomain(input: { companyId: string; hostname: string }, idempotencyKey: string): Promise<CheckoutDomain>;
  getDomain(domainId: string): Promise<CheckoutDomain>;
  /** Adds Apple Pay to the domain, or retries it when it needs action (PATCH /domains/{id} { apple_pay: {} }). */
  addApplePay(domainId: string): Promise<CheckoutDomain>;
  /** Has Whop check the domain again now (POST /domains/{id}/check); answers the domain as saved, before the result. */
  checkDomain(domainId: string): Promise<CheckoutDomain>;
}

/** A company-wide list query: Whop's created_after filter, ascending, cursor paged. */
export interface CompanyListQuery {
  companyId: string;
  /** ISO 8601. */
  createdAfter: string;
  after?: string;
  /** At most 100. */
  first: number;
}

export interface ListPage<T> {
  items: T[];
  /** The cursor of the next page, or null on the last. */
  nextCursor: string | null;
}

/** A dispute (chargeback, inquiry) of the company's (Whop's Dispute, `dspt_…`). */
export interface Dispute {
  id: string;
  status: string;
  amountMinor: number;
  /** ISO 4217, upper case; null when Whop's currency is not one (crypto). */
  currency: string | null;
  reason: string | null;
  paymentId: string | null;
  createdAt: string | null;
}

/** Integer minor units as Whop's decimal major units (exact for every ISO exponent). */
export function toDecimal(amountMinor: number, currency: string): number {
  return Number((amountMinor / 10 ** currencyExponent(currency)).toFixed(currencyExponent(currency)));
}

export function toMinor(decimal: number, currency: string): number {
  return Math.round(decimal * 10 ** currencyExponent(currency));
}

/** Whop's status and substatus as one state: refunded only in full (a partial refund keeps the payment paid). */
export function paymentState(p: Pick<WhopPayment, 'status' | 'substatus'>): PaymentState {
  if (p.status === 'paid') return p.substatus === 'refunded' || p.substatus === 'auto_refunded' ? 'refunded' : 'paid';
  if (p.substatus === 'failed' || p.status === 'void' || p.status === 'uncollectible') return 'failed';
  return 'pending';
}

/**
 * Whop's substatuses (FriendlyReceiptStatus, @whop/sdk src/resources/shared.ts) of a payment whose money is contested:
 * a dispute or resolution open, awaiting a response, under review, or lost. Won and closed ones are not.
 */
const DISPUTED_SUBSTATUSES: ReadonlySet<string> = new Set([
  'dispute_warning', 'dispute_needs_response', 'dispute_warning_needs_response', 'resolution_needs_response', 'dispute_under_review',
  'dispute_warning_under_review', 'resolution_under_review', 'dispute_lost', 'resolution_lost', 'open_dispute', 'open_resolution',
]);

const stringRecord = (value: Record<string, unknown> | null | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(value ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));

function toPayment(p: WhopPayment): Payment {
  const currency = (p.currency ?? 'usd').toUpperCase();
  return {
    id: p.id, state: paymentState(p), status: p.status ?? null, substatus: p.substatus ?? null,
    amountMinor: toMinor(p.total ?? 0, currency), currency, metadata: stringRecord(p.metadata),
    checkoutId: p.checkout_configuration_id ?? null, memberId: p.member?.id ?? null, paymentMethodId: p.payment_method?.id ?? null,
    membershipId: p.membership?.id ?? null, billingReason: p.billing_reason ?? null, failureMessage: p.failure_message ?? null,
    refundId: p.refunds?.find((r) => r.status !== 'failed' && r.status !== 'canceled')?.id ?? null,
    refundedMinor: toMinor(p.refunded_amount ?? 0, currency),
    disputed: DISPUTED_SUBSTATUSES.has(p.substatus ?? '') || (!!p.dispute_alerted_at && (p.substatus ?? 'succeeded') === 'succeeded'),
  };
}

function toMembership(m: WhopMembership): Membership {
  return {
    id: m.id, status: m.status, valid: m.status === 'active' || m.status === 'trialing' || m.status === 'canceling',
    cancelAtPeriodEnd: m.cancel_at_period_end ?? false, periodStart: m.renewal_period_start ?? null, periodEnd: m.renewal_period_end ?? null,
    metadata: stringRecord(m.metadata), planId: m.plan?.id ?? null,
  };
}

/** Retry-After (seconds or an HTTP date), else Whop's documented body "Try again in N seconds.". */
function retryAfterMs(err: InstanceType<typeof Whop.APIError>): number | undefined {
  const header = err.headers?.get('retry-after');
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
  }
  const said = /try again in (\d+(?:\.\d+)?) seconds?/i.exec(err.message)?.[1];
  return said === undefined ? undefined : Number(said) * 1000;
}

/** Any SDK failure as our IntegrationError (by status, never by message text). */
export function asIntegrationError(err: unknown, what: string): unknown {
  if (err instanceof Whop.APIConnectionTimeoutError) return new IntegrationError(PROCESSOR_SYSTEM, 'timeout', `${PROCESSOR_SYSTEM}: ${what} did not answer in time`, { cause: err });
  if (err instanceof Whop.APIConnectionError) return new IntegrationError(PROCESSOR_SYSTEM, 'unavailable', `${PROCESSOR_SYSTEM}: ${what} failed: ${err.message}`, { cause: err });
  if (err instanceof Whop.APIError && typeof err.status === 'number') {
    return new IntegrationError(PROCESSOR_SYSTEM, kindForStatus(err.status), `${PROCESSOR_SYSTEM}: ${what} answered ${err.message}`, {
      status: err.status, retryAfterMs: retryAfterMs(err), remote: err.error, cause: err,
    });
  }
  return err;
}

/** How many pages of 100 findPayment reads before it gives up saying so (never a guess that the charge was not made). */
/** Whop's names of the wallet methods its hosted page offers by default (PaymentMethodTypes). */
const WALLET_METHODS = ['apple_pay', 'google_pay'] as const;

const FIND_PAGES = 10;
const findPageSchema = z.looseObject({
  data: paymentSchema.array(),
  page_info: z.looseObject({ end_cursor: z.string().nullish(), has_next_page: z.boolean().nullish() }),
});

/**
 * The event names a 400 answer to POST /webhooks names (as whole names, in its message or body), of those asked for.
 * The one place the answer's text is read: Whop gives no field for which names it refused.
 */
export function refusedEventNames(err: unknown, asked: readonly string[]): string[] {
  if (!(err instanceof IntegrationError) || err.status !== 400) return [];
  const text = `${err.message} ${JSON.stringify(err.remote ?? null)}`;
  return asked.filter((name) => new RegExp(`(^|[^a-z_.])${name.replace(/\./g, '\\.')}($|[^a-z_.])`).test(text));
}

export function createProcessorClient(options: ProcessorClientOptions): ProcessorClient {
  const whop = new Whop({
    apiKey: options.apiKey,
    baseURL: options.baseUrl.replace(/\/+$/, ''),
    timeout: options.timeoutMs ?? 10_000,
    maxRetries: 0,
    // Never read from the environment: one client per merchant, every value explicit.
    webhookKey: null,
    appID: null,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const idem = (key: string) => ({ headers: { 'Idempotency-Key': key } });

  async function call<S extends z.ZodType>(what: string, schema: S, run: () => PromiseLike<unknown>): Promise<z.output<S>> {
    let answer: unknown;
    try {
      answer = await run();
    } catch (err) {
      throw asIntegrationError(err, what);
    }
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
      throw new IntegrationError(PROCESSOR_SYSTEM, 'invalid_response', `${PROCESSOR_SYSTEM}: ${what} answered an unexpected shape (${issues})`, { remote: answer });
    }
    return parsed.data;
  }

  const plan = (price: OneTimePrice) => ({
    product_id: price.productId, plan_type: 'one_time' as const, initial_price: toDecimal(price.amountMinor, price.currency),
    currency: price.currency.toLowerCase() as 'usd', visibility: 'hidden' as const, title: price.title.slice(0, 60),
  });

  return {
    getAccount: async () => {
      const account = await call('GET /accounts/me', accountSchema, () => whop.accounts.me());
      return { id: account.id, title: account.title ?? null };
    },
    createProduct: async ({ companyId, title }, key) =>
      call('POST /products', productSchema, () => whop.products.create({ title, account_id: companyId, visibility: 'hidden' }, idem(key))),
    createWebhook: async ({ companyId, url, events }, key) => {
      // api_version v1: the payload shape we read (type, id, company_id, a Payment with our metadata); docs/processor.md.
      const create = (names: readonly string[], idemKey: string) => call('POST /webhooks', createdWebhookSchema, () =>
        whop.webhooks.create({ url, events: [...names] as Whop.WebhookCreateParams['events'], resource_id: companyId, api_version: 'v1' }, idem(idemKey)));
      try {
        const hook = await create(events, key);
        return { id: hook.id, secret: hook.webhook_secret.trim(), refusedEvents: [] };
      } catch (err) {
        const refused = refusedEventNames(err, events);
        if (refused.length === 0 || refused.length === events.length) throw err;
        // Whop refuses names its own list offers (membership.activated/deactivated, Whop's notes): the rest still count.
        const kept = events.filter((name) => !refused.includes(name));
        const hook = await create(kept, `${key}:without:${refused.join(',')}`);
        return { id: hook.id, secret: hook.webhook_secret.trim(), refusedEvents: refused };
      }
    },
    deleteWebhook: async (webhookId) => {
      try {
        await whop.webhooks.delete(webhookId);
      } catch (err) {
        throw asIntegrationError(err, 'DELETE /webhooks/{id}');
      }
    },
    createCheckout: async (input, key) => {
      const body = {
        ...('planId' in input ? { plan_id: input.planId } : { plan: plan(input.price) }), metadata: input.metadata, redirect_url: input.redirectUrl,
        // `disabled` applies on top of the platform defaults (include_platform_defaults), so every other method stays.
        ...(input.wallets === false ? { payment_method_configuration: { disabled: [...WALLET_METHODS], enabled: [], include_platform_defaults: true } } : {}),
      };
      const checkout = await call('POST /checkout_configurations', checkoutConfigurationSchema, () => whop.checkoutConfigurations.create(body, idem(key)));
      return { id: checkout.id, purchaseUrl: checkout.purchase_url };
    },
    getPayment: async (paymentId) => toPayment(await call('GET /payments/{id}', paymentSchema, () => whop.payments.retrieve(paymentId))),
    listPayments: async ({ companyId, checkoutIds }) => {
      // One page of 100: a session has one checkout per payment attempt, each paid at most once.
      const page = await call('GET /payments', paymentSchema.array(), async () =>
        (await whop.payments.list({ company_id: companyId, checkout_configuration_ids: [...checkoutIds], first: 100 })).data);
      return page.map(toPayment);
    },
    refundPayment: async (paymentId, key, amount) => {
      // In the payment's own currency (Whop: "for single-currency, this is in the payment currency"); none: all that is left.
      const body = amount ? { partial_amount: toDecimal(amount.amountMinor, amount.currency) } : {};
      return toPayment(await call('POST /payments/{id}/refund', paymentSchema, () => whop.payments.refund(paymentId, body, idem(key))));
    },
    listRefunds: async (paymentId) => {
      // A payment has few refunds (each at least one minor unit of it): one page of 100 holds them all.
      const page = await call('GET /refunds', refundSchema.array(), async () => (await whop.refunds.list({ payment_id: paymentId, first: 100 })).data);
      return page.map((r) => {
        const currency = r.currency.toUpperCase();
        return { id: r.id, paymentId: r.payment?.id ?? paymentId, amountMinor: toMinor(r.amount, currency), currency, status: r.status, createdAt: r.created_at };
      });
    },
    listSavedPaymentMethods: async (memberId) => {
      // A member saves a handful of methods at most: one page of 100 holds them.
      const page = await call('GET /payment_methods', paymentMethodSchema.array(), async () => (await whop.paymentMethods.list({ member_id: memberId, first: 100 })).data);
      return page.map((m) => ({ id: m.id, type: m.payment_method_type ?? null, createdAt: m.created_at ?? null }));
    },
    findPayment: async ({ companyId, productId, createdAfter, metadata }) => {
      // Every checkout of the merchant is paid on the same product, so a busy shop may have more than a page in the
      // window: read on, newest first, up to FIND_PAGES pages.
      const matches = (p: z.output<typeof paymentSchema>) => Object.entries(metadata).every(([k, v]) => p.metadata?.[k] === v);
      let after: string | undefined;
      for (let n = 0; n < FIND_PAGES; n++) {
        const page = await call('GET /payments', findPageSchema, async () => {
          const answer = await whop.payments.list({ company_id: companyId, product_ids: [productId], created_after: createdAfter.toISOString(), first: 100, ...(after ? { after } : {}) });
          return { data: answer.data, page_info: answer.page_info };
        });
        const found = page.data.find(matches);
        if (found) return toPayment(found);
        if (!page.page_info.end_cursor || page.page_info.has_next_page === false) return null;
        after = page.page_info.end_cursor;
      }
      throw new IntegrationError(PROCESSOR_SYSTEM, 'unavailable', `${PROCESSOR_SYSTEM}: more than ${FIND_PAGES * 100} payments of product ${productId} since ${createdAfter.toISOString()}: cannot tell whether the charge was made`);
    },
    chargeSavedMethod: async (input, key) =>
      toPayment(await call('POST /payments', paymentSchema, () => whop.payments.create({
        company_id: input.companyId, member_id: input.memberId, payment_method_id: input.paymentMethodId, plan: plan(input.price), metadata: input.metadata,
      }, idem(key)))),
    createRenewalPlan: async (input, key) =>
      call('POST /plans', planSchema, () => whop.plans.create({
        account_id: input.companyId, product_id: input.productId, plan_type: 'renewal', initial_price: 0,
        renewal_price: toDecimal(input.amountMinor, input.currency), billing_period: input.billingPeriodDays,
        currency: input.currency.toLowerCase() as 'usd', visibility: 'hidden', title: input.title.slice(0, 60),
      }, idem(key))),
    getMembership: async (membershipId) => toMembership(await call('GET /memberships/{id}', membershipSchema, () => whop.memberships.retrieve(membershipId))),
    // Immediate: our plan ends when we cancel (the account is on Demo at once), so Whop must stop billing now too.
    cancelMembership: async (membershipId) =>
      toMembership(await call('POST /memberships/{id}/cancel', membershipSchema, () => whop.memberships.cancel(membershipId, { cancellation_mode: 'immediate' }))),
    // Both lists: company_id alone (Whop: payment_id, company_id and user_id are exclusive), created_after, direction
    // asc (the sweep's watermark moves forward page by page), one page per call (the caller bounds the work).
    listCompanyRefunds: async ({ companyId, createdAfter, after, first }) => {
      const page = await call('GET /refunds', companyPageSchema(refundSchema), async () => {
        const p = await whop.refunds.list({ company_id: companyId, created_after: createdAfter, direction: 'asc', first, ...(after ? { after } : {}) });
        return { data: p.data, page_info: p.page_info };
      });
      return {
        items: page.data.flatMap((r) => (r.payment ? [{ ...toRefund(r), paymentId: r.payment.id }] : [])),
        nextCursor: page.page_info.has_next_page === false ? null : (page.page_info.end_cursor ?? null),
      };
    },
    listCompanyDisputes: async ({ companyId, createdAfter, after, first }) => {
      const page = await call('GET /disputes', companyPageSchema(disputeSchema), async () => {
        const p = await whop.disputes.list({ company_id: companyId, created_after: createdAfter, direction: 'asc', first, ...(after ? { after } : {}) });
        return { data: p.data, page_info: p.page_info };
      });
      return { items: page.data.map(toDispute), nextCursor: page.page_info.has_next_page === false ? null : (page.page_info.end_cursor ?? null) };
    },
    getDispute: async (disputeId) => toDispute(await call('GET /disputes/{id}', disputeSchema, () => whop.disputes.retrieve(disputeId))),
    // The Domains API: @whop/sdk 0.0.42 (the newest on npm) has no domains resource, so these go through the SDK's own
    // generic request methods (its base URL, Bearer auth, Api-Version-Date, time-out and errors), never a hand-made
    // fetch. Paths, parameters and answers: Whop's official Python SDK, whop-sdk 2.6.0 (docs/processor.md).
    findDomain: async ({ companyId, hostname }) => {
      const page = await call('GET /domains', domainListSchema, () => whop.get('/domains', { query: { account_id: companyId, domain: hostname, first: 10 } }));
      const found = page.data.find((d) => d.domain.toLowerCase() === hostname.toLowerCase());
      return found ? toDomain(found) : null;
    },
    // Always with apple_pay: a create without a capability means registration, which buys the domain.
    createDomain: async ({ companyId, hostname }, key) =>
      toDomain(await call('POST /domains', domainSchema, () => whop.post('/domains', { body: { domain: hostname, account_id: companyId, apple_pay: {} }, ...idem(key) }))),
    getDomain: async (domainId) => toDomain(await call('GET /domains/{id}', domainSchema, () => whop.get(`/domains/${encodeURIComponent(domainId)}`))),
    addApplePay: async (domainId) =>
      toDomain(await call('PATCH /domains/{id}', domainSchema, () => whop.patch(`/domains/${encodeURIComponent(domainId)}`, { body: { apple_pay: {} } }))),
    checkDomain: async (domainId) => toDomain(await call('POST /domains/{id}/check', domainSchema, () => whop.post(`/domains/${encodeURIComponent(domainId)}/check`))),
  };
}

function toDomain(d: z.output<typeof domainSchema>): CheckoutDomain {
  return {
    id: d.id, hostname: d.domain.toLowerCase(), applePay: d.apple_pay?.state ?? null,
    issues: d.issues.map((issue) => ({
      capability: issue.capability, code: issue.code, message: issue.message, codeBlock: issue.code_block ?? null,
      dnsRecords: issue.dns_records.map((r) => ({ type: r.type, name: r.name, value: r.value })),
    })),
  };
}

function toDispute(d: z.output<typeof disputeSchema>): Dispute {
  const currency = isKnownCurrency(d.currency.toUpperCase()) ? d.currency.toUpperCase() : null;
  return {
    id: d.id, status: d.status, amountMinor: currency ? toMinor(d.amount, currency) : 0, currency, reason: d.reason ?? null,
    paymentId: d.payment?.id ?? null, createdAt: d.created_at ?? null,
  };
}

function toRefund(r: z.output<typeof refundSchema>): Omit<Refund, 'paymentId'> {
  const currency = r.currency.toUpperCase();
  return { id: r.id, amountMinor: toMinor(r.amount, currency), currency, status: r.status, createdAt: r.created_at };
}
