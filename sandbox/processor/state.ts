// The processor's in-memory world: accounts (API key → business), products, webhook endpoints, payments
// and their refunds, wallet domains, plans and memberships. Every payment status change goes through
// settle(), which keeps the bookkeeping fields and the membership in step and emits the webhook events of
// that transition (unless the change is a silent control-plane move).
import { randomBytes } from 'node:crypto';
import { PROCESSOR_EVENTS, type ProcessorEventName, type ProcessorWebhookPayload } from '../../integrations/processor/webhook.js';
import type {
  Business,
  CreatedWebhookEndpoint,
  Membership,
  Payment,
  PaymentStatus,
  Plan,
  PlanInterval,
  Product,
  Refund,
  WalletDomain,
  WalletDomainStatus,
} from '../../integrations/processor/schemas.js';

export const DEFAULT_API_KEY = 'sk_sandbox_demo';
export const DEFAULT_BUSINESS_ID = 'biz_sandboxdemo';
export const DEFAULT_BUSINESS_NAME = 'Sandbox Demo Business';
/** The service's own account (platform billing charges merchants' plans on it), seeded like the demo one. */
export const PLATFORM_API_KEY = 'sk_sandbox_platform';
export const PLATFORM_BUSINESS_ID = 'biz_sandboxplatform';
/** Like the real platforms: a bounded number of endpoints per account. */
export const MAX_WEBHOOK_ENDPOINTS = 16;

export type WebhookData = ProcessorWebhookPayload['data'];
export type Emit = (businessId: string, event: ProcessorEventName, data: WebhookData) => void;

/** An error the API answers as { error: { type, message, param? } } with this status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export type CardOutcome = 'succeed' | 'decline' | 'authenticate';
export const TEST_CARDS: Record<string, { outcome: CardOutcome; label: string }> = {
  '4242424242424242': { outcome: 'succeed', label: 'succeeds' },
  '4000000000000002': { outcome: 'decline', label: 'is declined' },
  '4000002500003155': { outcome: 'authenticate', label: 'needs authentication, then succeeds' },
};

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export function newId(prefix: string, length = 16): string {
  let out = '';
  for (const byte of randomBytes(length)) out += ALPHABET.charAt(byte % ALPHABET.length);
  return `${prefix}_${out}`;
}

const now = () => new Date().toISOString();

function addInterval(fromIso: string, interval: PlanInterval): string {
  const d = new Date(fromIso);
  if (interval === 'month') d.setUTCMonth(d.getUTCMonth() + 1);
  else d.setUTCFullYear(d.getUTCFullYear() + 1);
  return d.toISOString();
}

const STATUS_MESSAGES: Record<WalletDomainStatus, string | null> = {
  registered: null,
  pending: 'Verification of the domain is in progress.',
  needs_action: 'Add this domain in the processor dashboard (Settings → Wallet domains) to finish registration.',
};

export interface Account {
  apiKey: string;
  business: Business;
}

type Owned<T> = T & { business_id: string };
const withoutOwner = <T extends { business_id: string }>({ business_id: _b, ...rest }: T): Omit<T, 'business_id'> => rest;

export interface PaymentInput {
  amount: number;
  currency: string;
  product_id?: string;
  metadata?: Record<string, string>;
  return_url?: string;
  description?: string;
}

export class ProcessorState {
  private accounts = new Map<string, Account>();
  private products = new Map<string, Product>();
  private webhooks = new Map<string, Owned<CreatedWebhookEndpoint>>();
  private payments = new Map<string, Payment>();
  private refunds = new Map<string, Refund>();
  private walletDomains = new Map<string, Owned<WalletDomain>>();
  private walletOutcomes = new Map<string, WalletDomainStatus>();
  private plans = new Map<string, Plan>();
  private memberships = new Map<string, Membership>();
  /** Control plane: how the next renewal charges of a membership end (default: they succeed). */
  private renewalOutcomes = new Map<string, 'succeeded' | 'failed'>();

  constructor(private readonly emit: Emit) {
    this.reset();
  }

  reset(): void {
    for (const map of [this.accounts, this.products, this.webhooks, this.payments, this.refunds, this.walletDomains, this.walletOutcomes, this.plans, this.memberships, this.renewalOutcomes]) {
      map.clear();
    }
    this.createAccount({ apiKey: DEFAULT_API_KEY, businessName: DEFAULT_BUSINESS_NAME, businessId: DEFAULT_BUSINESS_ID });
    this.createAccount({ apiKey: PLATFORM_API_KEY, businessName: 'Checkout Platform (sandbox)', businessId: PLATFORM_BUSINESS_ID });
  }

  // ── accounts ──────────────────────────────────────────────────────────────────────────────────────
  createAccount(input: { apiKey?: string; businessName?: string; businessId?: string }): Account {
    const apiKey = input.apiKey ?? newId('sk_sandbox', 24);
    if (this.accounts.has(apiKey)) throw new ApiError(409, 'conflict', 'An account with this API key already exists', 'apiKey');
    const business: Business = { id: input.businessId ?? newId('biz'), object: 'business', name: input.businessName ?? 'Sandbox Business', created_at: now() };
    const account = { apiKey, business };
    this.accounts.set(apiKey, account);
    return account;
  }

  accountByKey(apiKey: string): Account | undefined {
    return this.accounts.get(apiKey);
  }

  businessName(businessId: string): string {
    return [...this.accounts.values()].find((a) => a.business.id === businessId)?.business.name ?? 'Merchant';
  }

  /** The resource if it exists and belongs to this business; other accounts' resources do not exist. */
  private own<T extends { business_id: string }>(map: Map<string, T>, id: string, businessId: string | undefined, kind: string): T {
    const item = map.get(id);
    if (!item || (businessId !== undefined && item.business_id !== businessId)) throw new ApiError(404, 'not_found', `No such ${kind}: '${id}'`);
    return item;
  }

  /** A referenced resource in a create request: missing is a bad request, not a missing URL. */
  private referenced<T extends { business_id: string }>(map: Map<string, T>, id: string, businessId: string, kind: string, param: string): T {
    const item = map.get(id);
    if (!item || item.business_id !== businessId) throw new ApiError(400, 'resource_missing', `No such ${kind}: '${id}'`, param);
    return item;
  }

  // ── products ──────────────────────────────────────────────────────────────────────────────────────
  createProduct(businessId: string, input: { name: string; description?: string }): Product {
    const product: Product = { id: newId('prod'), object: 'product', business_id: businessId, name: input.name, description: input.description ?? null, created_at: now() };
    this.products.set(product.id, product);
    return product;
  }

  getProduct(businessId: string, id: string): Product {
    return this.own(this.products, id, businessId, 'product');
  }

  // ── webhook endpoints ─────────────────────────────────────────────────────────────────────────────
  registerWebhook(businessId: string, input: { url: string; events?: ProcessorEventName[] }): CreatedWebhookEndpoint {
    if (this.listWebhooks(businessId).length >= MAX_WEBHOOK_ENDPOINTS) {
      throw new ApiError(400, 'limit_exceeded', `An account can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`);
    }
    const endpoint = {
      id: newId('whk'),
      object: 'webhook_endpoint' as const,
      business_id: businessId,
      url: input.url,
      events: input.events ? [...new Set(input.events)] : [...PROCESSOR_EVENTS],
      secret: `whsec_${randomBytes(24).toString('hex')}`,
      created_at: now(),
    };
    this.webhooks.set(endpoint.id, endpoint);
    return withoutOwner(endpoint);
  }

  listWebhooks(businessId: string): Array<Owned<CreatedWebhookEndpoint>> {
    return [...this.webhooks.values()].filter((w) => w.business_id === businessId);
  }

  deleteWebhook(businessId: string, id: string): void {
    this.own(this.webhooks, id, businessId, 'webhook endpoint');
    this.webhooks.delete(id);
  }

  /** Where an event of this business goes: the endpoints subscribed to it, with their secrets. */
  webhookTargets(businessId: string, event: ProcessorEventName): Array<{ id: string; url: string; secret: string }> {
    return this.listWebhooks(businessId).filter((w) => w.events.includes(event));
  }

  webhookExists(id: string): boolean {
    return this.webhooks.has(id);
  }

  // ── payments ──────────────────────────────────────────────────────────────────────────────────────
  createPayment(businessId: string, input: PaymentInput, pageUrl: (id: string) => string, membershipId: string | null = null): Payment {
    if (input.product_id) this.referenced(this.products, input.product_id, businessId, 'product', 'product_id');
    const id = newId('pay');
    const payment: Payment = {
      id,
      object: 'payment',
      business_id: businessId,
      status: 'requires_payment',
      amount: input.amount,
      currency: input.currency,
      metadata: input.metadata ?? {},
      product_id: input.product_id ?? null,
      membership_id: membershipId,
      description: input.description ?? null,
      return_url: input.return_url ?? null,
      payment_url: pageUrl(id),
      card_last4: null,
      failure_reason: null,
      refund_id: null,
      created_at: now(),
      paid_at: null,
      refunded_at: null,
    };
    this.payments.set(id, payment);
    return payment;
  }

  /** Without a business id: the public hosted page and the control plane, which address payments by id alone. */
  getPayment(businessId: string | undefined, id: string): Payment {
    return this.own(this.payments, id, businessId, 'payment');
  }

  listPayments(businessId: string, checkoutSessionToken?: string): Payment[] {
    return [...this.payments.values()]
      .filter((p) => p.business_id === businessId && (checkoutSessionToken === undefined || p.metadata.checkout_session_token === checkoutSessionToken))
      .reverse();
  }

  /** Whether the hosted page may take a card for this payment. */
  payable(payment: Payment): boolean {
    const membership = payment.membership_id ? this.memberships.get(payment.membership_id) : undefined;
    return payment.status === 'requires_payment' && membership?.status !== 'canceled';
  }

  /** A test card was submitted on the hosted page. Only the last four digits are kept. */
  submitCard(payment: Payment, last4: string, outcome: CardOutcome): void {
    const to = outcome === 'succeed' ? 'succeeded' : outcome === 'decline' ? 'failed' : 'requires_action';
    this.settle(payment, to, { last4, failureReason: 'card_declined' });
  }

  /** The customer completed (or failed) the extra authentication step. */
  authenticate(payment: Payment, complete: boolean): void {
    this.settle(payment, complete ? 'succeeded' : 'failed', { failureReason: 'authentication_failed' });
  }

  /** Full refund. A refunded payment answers its existing refund, so a refund never happens twice. */
  refund(businessId: string, id: string, amount?: number): { refund: Refund; created: boolean } {
    const payment = this.getPayment(businessId, id);
    if (payment.status === 'refunded' && payment.refund_id) {
      return { refund: this.refunds.get(payment.refund_id)!, created: false };
    }
    if (payment.status !== 'succeeded') {
      throw new ApiError(422, 'invalid_state', `Payment ${id} cannot be refunded: its status is ${payment.status}`);
    }
    if (amount !== undefined && amount !== payment.amount) {
      throw new ApiError(400, 'invalid_request_error', 'Only full refunds are supported: omit amount or send the full amount', 'amount');
    }
    this.settle(payment, 'refunded');
    return { refund: this.refunds.get(payment.refund_id!)!, created: true };
  }

  /** Control plane: move a payment's status without sending webhooks (reconciliation tests). */
  forcePaymentStatus(id: string, status: PaymentStatus): Payment {
    const payment = this.getPayment(undefined, id);
    this.settle(payment, status, { silent: true, failureReason: 'card_declined' });
    return payment;
  }

  private settle(payment: Payment, to: PaymentStatus, opts: { last4?: string; failureReason?: string; silent?: boolean } = {}): void {
    const at = now();
    const events: Array<[ProcessorEventName, WebhookData]> = [];
    payment.status = to;
    if (opts.last4) payment.card_last4 = opts.last4;
    payment.failure_reason = to === 'failed' ? (opts.failureReason ?? 'card_declined') : null;
    if (to === 'succeeded') payment.paid_at ??= at;
    if (to === 'refunded' && !payment.refund_id) {
      const refund: Refund = { id: newId('re'), object: 'refund', payment_id: payment.id, amount: payment.amount, currency: payment.currency, status: 'succeeded', created_at: at };
      this.refunds.set(refund.id, refund);
      payment.refund_id = refund.id;
      payment.refunded_at = at;
    }
    const data = this.paymentData(payment);
    if (to === 'succeeded') events.push(['payment_succeeded', data], ['invoice_paid', data]);
    if (to === 'failed') events.push(['payment_failed', data], ['invoice_payment_failed', data]);
    if (to === 'refunded') events.push(['payment_refunded', data], ['invoice_refunded', data]);

    const membership = payment.membership_id ? this.memberships.get(payment.membership_id) : undefined;
    if (membership && membership.status !== 'canceled') events.push(...this.followPayment(membership, to, at));
    if (!opts.silent) for (const [event, eventData] of events) this.emit(payment.business_id, event, eventData);
  }

  /** A membership follows its payments: paid → active (valid), a failed renewal → past_due (invalid). */
  private followPayment(membership: Membership, to: PaymentStatus, at: string): Array<[ProcessorEventName, WebhookData]> {
    const events: ProcessorEventName[] = [];
    if (to === 'succeeded') {
      if (membership.status === 'pending') events.push('membership_activated');
      if (!membership.valid) events.push('membership_went_valid');
      const plan = this.plans.get(membership.plan_id)!;
      const periodStart = membership.current_period_end && membership.current_period_end > at ? membership.current_period_end : at;
      membership.status = 'active';
      membership.valid = true;
      membership.current_period_end = addInterval(periodStart, plan.interval);
    } else if (to === 'failed' && membership.status === 'active') {
      events.push('membership_went_invalid');
      membership.status = 'past_due';
      membership.valid = false;
    }
    return events.map((e) => [e, this.membershipData(membership)]);
  }

  // ── wallet domains ────────────────────────────────────────────────────────────────────────────────
  registerWalletDomain(businessId: string, domain: string): { walletDomain: WalletDomain; created: boolean } {
    const existing = this.listWalletDomains(businessId).find((d) => d.domain === domain);
    if (existing) return { walletDomain: existing, created: false };
    const status = this.walletOutcomes.get(domain) ?? 'registered';
    const record = { id: newId('wd'), object: 'wallet_domain' as const, business_id: businessId, domain, status, status_message: STATUS_MESSAGES[status], created_at: now() };
    this.walletDomains.set(record.id, record);
    return { walletDomain: withoutOwner(record), created: true };
  }

  listWalletDomains(businessId: string): WalletDomain[] {
    return [...this.walletDomains.values()].filter((d) => d.business_id === businessId).map(withoutOwner);
  }

  /** Control plane: the status this domain ends in, now and for later registrations. */
  forceWalletDomainStatus(domain: string, status: WalletDomainStatus): number {
    this.walletOutcomes.set(domain, status);
    const affected = [...this.walletDomains.values()].filter((d) => d.domain === domain);
    for (const d of affected) Object.assign(d, { status, status_message: STATUS_MESSAGES[status] });
    return affected.length;
  }

  // ── plans and memberships ─────────────────────────────────────────────────────────────────────────
  createPlan(businessId: string, input: { name: string; amount: number; currency: string; interval: PlanInterval }): Plan {
    const plan: Plan = { id: newId('plan'), object: 'plan', business_id: businessId, ...input, created_at: now() };
    this.plans.set(plan.id, plan);
    return plan;
  }

  getPlan(businessId: string, id: string): Plan {
    return this.own(this.plans, id, businessId, 'plan');
  }

  createMembership(
    businessId: string,
    input: { plan_id: string; metadata?: Record<string, string>; return_url?: string },
    pageUrl: (id: string) => string,
  ): Membership {
    const plan = this.referenced(this.plans, input.plan_id, businessId, 'plan', 'plan_id');
    const id = newId('mem');
    const metadata = input.metadata ?? {};
    const first = this.createPayment(
      businessId,
      { amount: plan.amount, currency: plan.currency, metadata, return_url: input.return_url, description: `${plan.name} (membership)` },
      pageUrl,
      id,
    );
    const membership: Membership = {
      id,
      object: 'membership',
      business_id: businessId,
      plan_id: plan.id,
      status: 'pending',
      valid: false,
      amount: plan.amount,
      currency: plan.currency,
      metadata,
      return_url: input.return_url ?? null,
      payment_url: first.payment_url,
      latest_payment_id: first.id,
      current_period_end: null,
      canceled_at: null,
      created_at: now(),
    };
    this.memberships.set(id, membership);
    return membership;
  }

  getMembership(businessId: string | undefined, id: string): Membership {
    return this.own(this.memberships, id, businessId, 'membership');
  }

  /** Cancels at once (no access until period end). Cancelling again answers the canceled membership. */
  cancelMembership(businessId: string, id: string): Membership {
    const membership = this.getMembership(businessId, id);
    if (membership.status === 'canceled') return membership;
    const wasValid = membership.valid;
    Object.assign(membership, { status: 'canceled', valid: false, canceled_at: now() });
    if (wasValid) this.emit(businessId, 'membership_went_invalid', this.membershipData(membership));
    return membership;
  }

  /** Control plane: a renewal charge of the plan's amount, on the card of the last payment. */
  renewMembership(id: string, outcome: 'succeeded' | 'failed', pageUrl: (id: string) => string): { membership: Membership; payment: Payment } {
    const membership = this.getMembership(undefined, id);
    if (membership.status !== 'active' && membership.status !== 'past_due') {
      throw new ApiError(422, 'invalid_state', `Membership ${id} cannot renew: its status is ${membership.status}`);
    }
    const last4 = this.payments.get(membership.latest_payment_id)?.card_last4 ?? '4242';
    const plan = this.plans.get(membership.plan_id)!;
    const payment = this.createPayment(
      membership.business_id,
      { amount: membership.amount, currency: membership.currency, metadata: membership.metadata, description: `${plan.name} (renewal)` },
      pageUrl,
      membership.id,
    );
    membership.latest_payment_id = payment.id;
    this.settle(payment, outcome, { last4, failureReason: 'card_declined' });
    return { membership, payment };
  }

  /**
   * The API's renewal: charges the membership's next period on the card of its last payment, ending as the
   * control plane set for it (default succeeded). Its Idempotency-Key makes a retried charge answer the first.
   */
  chargeRenewal(businessId: string, id: string, pageUrl: (id: string) => string): Payment {
    this.getMembership(businessId, id);
    return this.renewMembership(id, this.renewalOutcomes.get(id) ?? 'succeeded', pageUrl).payment;
  }

  /** Control plane: how this membership's next renewal charges through the API end. */
  setRenewalOutcome(id: string, outcome: 'succeeded' | 'failed'): Membership {
    const membership = this.getMembership(undefined, id);
    this.renewalOutcomes.set(id, outcome);
    return membership;
  }

  // ── webhook data ──────────────────────────────────────────────────────────────────────────────────
  paymentData(p: Payment): WebhookData {
    return { id: p.id, status: p.status, amount: p.amount, currency: p.currency, metadata: { ...p.metadata }, ...(p.membership_id ? { membership_id: p.membership_id } : {}) };
  }

  membershipData(m: Membership): WebhookData {
    return { id: m.id, status: m.status, amount: m.amount, currency: m.currency, metadata: { ...m.metadata }, plan_id: m.plan_id };
  }

  /** Control plane: the current data of a payment (pay_...) or membership (mem_...) for an on-demand event. */
  eventSubject(id: string): { businessId: string; data: WebhookData } {
    if (id.startsWith('mem_')) {
      const m = this.getMembership(undefined, id);
      return { businessId: m.business_id, data: this.membershipData(m) };
    }
    const p = this.getPayment(undefined, id);
    return { businessId: p.business_id, data: this.paymentData(p) };
  }
}
