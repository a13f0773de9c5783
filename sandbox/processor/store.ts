// A local Whop's in-memory world, written from Whop's API v1 documentation and the field lists of @whop/sdk
// 0.0.42 (docs/processor.md lists the sources): companies behind API keys, products, plans, checkout
// configurations, payments (decimal totals, lowercase currencies, status + substatus), members and their payment
// methods (saved for off-session charges only when the buyer's checkout asked for it), setup intents, memberships, refunds (answered as the Payment) and webhook endpoints with their secrets.
// Every change a webhook reports goes through emit(); the dispatcher (whop-webhooks.ts) signs and delivers.
import { randomBytes } from 'node:crypto';
import { percentOfAmount, sumAmounts, whopAmount } from './money.js';

export const DEFAULT_API_KEY = 'apik_sandbox_demo';
export const DEFAULT_COMPANY_ID = 'biz_sandboxdemo';
/** The service's own company (platform billing sells merchants their plans on it), seeded like the demo one. */
export const PLATFORM_API_KEY = 'apik_sandbox_platform';
export const PLATFORM_COMPANY_ID = 'biz_sandboxplatform';
export const MAX_WEBHOOKS = 16;
/**
 * Event names `POST /webhooks` refuses although the event list names them (Whop's whop-sandbox notes, "verified live,
 * 2026-08-10": "webhooks.create … rejects membership.activated and membership.deactivated even though the docs list
 * them"). Endpoints made in Whop's dashboard may still take them.
 */
export const API_REFUSED_EVENTS: readonly string[] = ['membership.activated', 'membership.deactivated'];

/** An error the API answers as Whop does: `{ error: { type, message } }` with this status. */
export class WhopError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export type CardOutcome = 'succeed' | 'decline' | 'authenticate' | 'save_then_fail';
/** Whop's sandbox test cards (4242… pays, 4000…0002 is declined, 4000…0341 saves but every later charge fails), plus a 3-D Secure card. */
export const TEST_CARDS: Record<string, { outcome: CardOutcome; label: string }> = {
  '4242424242424242': { outcome: 'succeed', label: 'succeeds' },
  '4000000000000002': { outcome: 'decline', label: 'is declined' },
  '4000002500003155': { outcome: 'authenticate', label: 'needs authentication, then succeeds' },
  '4000000000000341': { outcome: 'save_then_fail', label: 'succeeds, but later off-session charges fail' },
};

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export function newId(prefix: string, length = 14): string {
  let out = '';
  for (const byte of randomBytes(length)) out += ALPHABET.charAt(byte % ALPHABET.length);
  return `${prefix}_${out}`;
}

const now = () => new Date().toISOString();
type Metadata = Record<string, unknown>;

export interface Company { id: string; title: string; route: string; email: string; created_at: string }
export interface Account { apiKey: string; company: Company }

export interface Product {
  id: string; company_id: string; title: string; visibility: string; description: string | null; metadata: Metadata | null;
  route: string; created_at: string; updated_at: string;
}

export type PlanType = 'one_time' | 'renewal';
export interface Plan {
  id: string; company_id: string; product_id: string | null; plan_type: PlanType; initial_price: number; renewal_price: number;
  billing_period: number | null; currency: string; visibility: string; title: string | null; metadata: Metadata | null;
  created_at: string; updated_at: string;
}

export interface CheckoutConfiguration {
  id: string; company_id: string; plan_id: string | null; mode: 'payment' | 'setup'; metadata: Metadata | null; redirect_url: string | null;
  /** Per-checkout payment method overrides, returned as given; null: the plan's or the platform's defaults. */
  payment_method_configuration: PaymentMethodConfiguration | null;
  created_at: string; updated_at: string;
}

/**
 * Whop's `payment_method_configuration` (PaymentMethodTypes names): `disabled` takes methods away from the platform
 * defaults and applies only when `include_platform_defaults` is true; `enabled` adds methods.
 */
export interface PaymentMethodConfiguration { disabled: string[]; enabled: string[]; include_platform_defaults: boolean }

export interface Member { id: string; company_id: string; email: string; user_id: string }
/**
 * A card a member paid or set up with. `off_session`: Whop keeps it for later charges without the buyer (listed by
 * GET /payment_methods, chargeable by POST /payments). Whop's guide "Save payment methods" names the only two ways:
 * a checkout configuration in `mode: "setup"`, or the embedded checkout with `setupFutureUsage: "off_session"`; a card
 * paid on the hosted page in payment mode is used for that payment only.
 */
export interface PaymentMethod { id: string; member_id: string; brand: string; last4: string; outcome: CardOutcome; off_session: boolean; created_at: string }

/** Whop's SetupIntent (@whop/sdk src/resources/setup-intents.ts): a card saved by a setup-mode checkout, nothing charged. */
export interface SetupIntent { id: string; company_id: string; checkout_configuration_id: string; member_id: string; payment_method_id: string; metadata: Metadata | null; created_at: string }

/** Control plane: how the next POST /payments misbehave (one shot each), as Whop's docs leave open. */
export interface ChargeFaults {
  /** The next n charges ignore Idempotency-Key (the SDK declares it only for products, plans and checkout configurations). */
  ignoreIdempotencyKey: number;
  /** The next n charges are made, and their answer never reaches the caller: held until it gives up, or the connection dropped. */
  loseAnswer: number;
  loseAnswerMode: 'timeout' | 'drop';
}

export type ReceiptStatus = 'draft' | 'open' | 'paid' | 'pending' | 'uncollectible' | 'unresolved' | 'void';
export interface RefundRecord { id: string; payment_id: string; amount: number; currency: string; status: 'pending' | 'succeeded' | 'failed'; created_at: string }
export interface Payment {
  id: string; company_id: string; status: ReceiptStatus; substatus: string; total: number; subtotal: number; currency: string;
  metadata: Metadata | null; checkout_configuration_id: string | null; plan_id: string; product_id: string | null;
  member_id: string | null; membership_id: string | null; payment_method_id: string | null;
  billing_reason: string; refunded_amount: number; refunded_at: string | null; refunds: RefundRecord[];
  failure_message: string | null; paid_at: string | null; created_at: string; updated_at: string;
}

export type MembershipStatus = 'trialing' | 'active' | 'past_due' | 'completed' | 'canceled' | 'expired' | 'unresolved' | 'drafted' | 'canceling';
export interface Membership {
  id: string; company_id: string; plan_id: string; product_id: string | null; member_id: string; status: MembershipStatus;
  metadata: Metadata | null; checkout_configuration_id: string | null; cancel_at_period_end: boolean; canceled_at: string | null;
  renewal_period_start: string | null; renewal_period_end: string | null; currency: string; created_at: string; updated_at: string;
}

/** A dispute (chargeback) filed against a paid payment (@whop/sdk Dispute, src/resources/disputes.ts). */
export type DisputeStatus = 'warning_needs_response' | 'warning_under_review' | 'warning_closed' | 'needs_response' | 'under_review' | 'won' | 'lost' | 'closed' | 'other';
export interface Dispute {
  id: string; company_id: string; payment_id: string; amount: number; currency: string; reason: string | null; status: DisputeStatus;
  needs_response_by: string | null; created_at: string;
}

export interface Webhook {
  id: string; company_id: string; url: string; events: string[]; api_version: 'v1' | 'v2' | 'v5'; enabled: boolean;
  child_resource_events: boolean; webhook_secret: string; created_at: string;
  /** Made through `POST /webhooks` (signed with x-whop-signature) or in the dashboard (Standard Webhooks): Whop's notes. */
  created_via: 'api' | 'dashboard';
}

export type Emit = (companyId: string, type: string, data: unknown) => void;

export class WhopStore {
  private accounts = new Map<string, Account>();
  readonly products = new Map<string, Product>();
  readonly plans = new Map<string, Plan>();
  readonly checkouts = new Map<string, CheckoutConfiguration>();
  readonly payments = new Map<string, Payment>();
  readonly members = new Map<string, Member>();
  readonly paymentMethods = new Map<string, PaymentMethod>();
  readonly memberships = new Map<string, Membership>();
  readonly webhooks = new Map<string, Webhook>();
  readonly disputes = new Map<string, Dispute>();
  readonly setupIntents = new Map<string, SetupIntent>();
  readonly chargeFaults: ChargeFaults = { ignoreIdempotencyKey: 0, loseAnswer: 0, loseAnswerMode: 'timeout' };
  /** Control plane: how the next renewal of a membership ends (default: paid). */
  readonly renewalOutcomes = new Map<string, 'succeeded' | 'failed'>();
  /** Event names `POST /webhooks` refuses: Whop's two, plus any a test adds (a name Whop may refuse one day). */
  readonly refusedApiEvents = new Set<string>();

  constructor(private readonly emit: Emit) {
    this.reset();
  }

  reset(): void {
    for (const map of [this.accounts, this.products, this.plans, this.checkouts, this.payments, this.members, this.paymentMethods, this.memberships, this.webhooks, this.renewalOutcomes, this.disputes, this.setupIntents]) map.clear();
    this.pendingRefunds = 0;
    Object.assign(this.chargeFaults, { ignoreIdempotencyKey: 0, loseAnswer: 0, loseAnswerMode: 'timeout' });
    this.refusedApiEvents.clear();
    for (const name of API_REFUSED_EVENTS) this.refusedApiEvents.add(name);
    this.createAccount({ apiKey: DEFAULT_API_KEY, title: 'Sandbox Demo Business', companyId: DEFAULT_COMPANY_ID });
    this.createAccount({ apiKey: PLATFORM_API_KEY, title: 'Checkout Platform (sandbox)', companyId: PLATFORM_COMPANY_ID });
  }

  // ── companies ───────────────────────────────────────────────────────────────────────────────────────
  createAccount(input: { apiKey?: string; title?: string; companyId?: string }): Account {
    const apiKey = input.apiKey ?? newId('apik', 24);
    if (this.accounts.has(apiKey)) throw new WhopError(409, 'conflict', 'An account with this API key already exists');
    const title = input.title ?? 'Sandbox Business';
    const id = input.companyId ?? newId('biz');
    const company = { id, title, route: title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || id, email: `owner@${id}.test`, created_at: now() };
    const account = { apiKey, company };
    this.accounts.set(apiKey, account);
    return account;
  }

  accountByKey(apiKey: string): Account | undefined {
    return this.accounts.get(apiKey);
  }

  company(id: string): Company | undefined {
    return [...this.accounts.values()].find((a) => a.company.id === id)?.company;
  }

  /** The resource, if this company owns it; another company's resources do not exist for the caller. */
  own<T extends { company_id: string }>(map: Map<string, T>, id: string, companyId: string | undefined, kind: string): T {
    const item = map.get(id);
    if (!item || (companyId !== undefined && item.company_id !== companyId)) throw new WhopError(404, 'not_found', `${kind} not found: ${id}`);
    return item;
  }

  // ── products and plans ──────────────────────────────────────────────────────────────────────────────
  createProduct(companyId: string, input: { title: string; visibility?: string; description?: string | null; metadata?: Metadata | null }): Product {
    const at = now();
    const id = newId('prod');
    const product: Product = {
      id, company_id: companyId, title: input.title, visibility: input.visibility ?? 'visible', description: input.description ?? null,
      metadata: input.metadata ?? null, route: id.toLowerCase(), created_at: at, updated_at: at,
    };
    this.products.set(id, product);
    return product;
  }

  createPlan(companyId: string, input: {
    product_id?: string | null; plan_type?: PlanType | null; initial_price?: number | null; renewal_price?: number | null; billing_period?: number | null;
    currency?: string | null; visibility?: string | null; title?: string | null; metadata?: Metadata | null;
  }): Plan {
    if (input.product_id) this.own(this.products, input.product_id, companyId, 'Product');
    const planType = input.plan_type ?? 'one_time';
    if (planType === 'renewal' && !input.billing_period) throw new WhopError(422, 'invalid_request', 'billing_period is required for a renewal plan');
    const at = now();
    const currency = (input.currency ?? 'usd').toLowerCase();
    const plan: Plan = {
      id: newId('plan'), company_id: companyId, product_id: input.product_id ?? null, plan_type: planType,
      initial_price: whopAmount(input.initial_price ?? 0, currency), renewal_price: whopAmount(input.renewal_price ?? 0, currency),
      billing_period: planType === 'renewal' ? input.billing_period! : null, currency,
      visibility: input.visibility ?? 'visible', title: input.title ?? null, metadata: input.metadata ?? null, created_at: at, updated_at: at,
    };
    this.plans.set(plan.id, plan);
    return plan;
  }

  /** What the first purchase of a plan charges: the initial price, plus the first period of a renewal plan. */
  firstCharge(plan: Plan): number {
    return sumAmounts(plan.currency, plan.initial_price, plan.plan_type === 'renewal' ? plan.renewal_price : 0);
  }

  // ── checkout configurations ─────────────────────────────────────────────────────────────────────────
  createCheckout(companyId: string, input: { plan_id?: string | null; plan?: Parameters<WhopStore['createPlan']>[1] | null; metadata?: Metadata | null; redirect_url?: string | null; mode?: 'payment' | 'setup'; payment_method_configuration?: PaymentMethodConfiguration | null }): CheckoutConfiguration {
    const mode = input.mode ?? 'payment';
    if (input.plan_id && input.plan) throw new WhopError(400, 'invalid_request', 'plan and plan_id are mutually exclusive');
    if (mode === 'payment' && !input.plan_id && !input.plan) throw new WhopError(400, 'invalid_request', 'A plan or plan_id is required in payment mode');
    const plan = input.plan_id ? this.own(this.plans, input.plan_id, companyId, 'Plan') : input.plan ? this.createPlan(companyId, input.plan) : null;
    const at = now();
    const checkout: CheckoutConfiguration = {
      id: newId('ch', 15), company_id: companyId, plan_id: plan?.id ?? null, mode, metadata: input.metadata ?? null, redirect_url: input.redirect_url ?? null,
      payment_method_configuration: input.payment_method_configuration ?? null, created_at: at, updated_at: at,
    };
    this.checkouts.set(checkout.id, checkout);
    return checkout;
  }

  /** A checkout that can still be paid: a payment-mode configuration whose plan has no paid purchase through it yet. */
  payable(checkout: CheckoutConfiguration): boolean {
    return checkout.mode === 'payment' && !this.paymentsOf(checkout).some((p) => p.status === 'paid' || p.status === 'pending');
  }

  paymentsOf(checkout: CheckoutConfiguration): Payment[] {
    return [...this.payments.values()].filter((p) => p.checkout_configuration_id === checkout.id);
  }

  // ── the hosted checkout: a buyer pays ───────────────────────────────────────────────────────────────
  private memberFor(companyId: string, email: string): Member {
    const found = [...this.members.values()].find((m) => m.company_id === companyId && m.email === email);
    if (found) return found;
    const member = { id: newId('mber'), company_id: companyId, email, user_id: newId('user') };
    this.members.set(member.id, member);
    return member;
  }

  /**
   * A card submitted for `checkout`: a payment (and for a plan a membership) comes of it. The card is saved for
   * off-session charges only with `setupFutureUsage: "off_session"` (what Whop's embedded checkout sends when the
   * merchant's page asks for it); paid on the hosted page in payment mode it serves this payment alone.
   */
  purchase(checkout: CheckoutConfiguration, buyer: { email: string; last4: string; outcome: CardOutcome; setupFutureUsage?: 'off_session' | null }): Payment {
    const plan = this.plans.get(checkout.plan_id!)!;
    const member = this.memberFor(checkout.company_id, buyer.email);
    // A declined card is never kept, whatever was asked.
    const method: PaymentMethod = {
      id: newId('payt'), member_id: member.id, brand: 'visa', last4: buyer.last4, outcome: buyer.outcome,
      off_session: buyer.setupFutureUsage === 'off_session' && buyer.outcome !== 'decline', created_at: now(),
    };
    this.paymentMethods.set(method.id, method);
    const payment = this.newPayment(checkout.company_id, plan, {
      metadata: checkout.metadata, checkoutId: checkout.id, memberId: member.id, methodId: method.id,
      billingReason: plan.plan_type === 'renewal' ? 'subscription_create' : 'one_time', total: this.firstCharge(plan),
    });
    if (buyer.outcome === 'decline') this.fail(payment, 'Your card was declined.');
    else if (buyer.outcome === 'authenticate') this.setStatus(payment, 'pending', 'pending');
    else this.pay(payment);
    return payment;
  }

  /**
   * A setup-mode checkout completed: the card is saved for the member, nothing is charged (Whop's guide "Save payment
   * methods", setup mode → setup_intent.succeeded with the configuration's metadata).
   */
  setUp(checkout: CheckoutConfiguration, buyer: { email: string; last4: string; outcome: CardOutcome }): SetupIntent {
    if (checkout.mode !== 'setup') throw new WhopError(409, 'conflict', 'This checkout configuration is not in setup mode');
    if (buyer.outcome === 'decline') throw new WhopError(402, 'card_declined', 'Your card was declined.');
    const member = this.memberFor(checkout.company_id, buyer.email);
    const method: PaymentMethod = { id: newId('payt'), member_id: member.id, brand: 'visa', last4: buyer.last4, outcome: buyer.outcome, off_session: true, created_at: now() };
    this.paymentMethods.set(method.id, method);
    const intent: SetupIntent = {
      id: newId('sint'), company_id: checkout.company_id, checkout_configuration_id: checkout.id, member_id: member.id, payment_method_id: method.id,
      metadata: checkout.metadata ? { ...checkout.metadata } : null, created_at: now(),
    };
    this.setupIntents.set(intent.id, intent);
    this.emit(checkout.company_id, 'setup_intent.succeeded', this.setupIntentView(intent));
    return intent;
  }

  /** The member's payment methods saved for off-session charges, newest first. */
  savedMethods(companyId: string, filter: { memberId?: string }): PaymentMethod[] {
    return [...this.paymentMethods.values()]
      .filter((m) => m.off_session && this.members.get(m.member_id)?.company_id === companyId && (!filter.memberId || m.member_id === filter.memberId))
      .reverse();
  }

  /** The 3-D Secure step of a pending payment ended. */
  authenticate(payment: Payment, complete: boolean): void {
    if (complete) this.pay(payment);
    else this.fail(payment, 'Authentication failed.');
  }

  private newPayment(companyId: string, plan: Plan, o: { metadata: Metadata | null; checkoutId: string | null; memberId: string; methodId: string; billingReason: string; total: number; membershipId?: string }): Payment {
    const at = now();
    const payment: Payment = {
      id: newId('pay'), company_id: companyId, status: 'open', substatus: 'pending', total: o.total, subtotal: o.total, currency: plan.currency,
      metadata: o.metadata ? { ...o.metadata } : null, checkout_configuration_id: o.checkoutId, plan_id: plan.id, product_id: plan.product_id,
      member_id: o.memberId, membership_id: o.membershipId ?? null, payment_method_id: o.methodId, billing_reason: o.billingReason,
      refunded_amount: 0, refunded_at: null, refunds: [], failure_message: null, paid_at: null, created_at: at, updated_at: at,
    };
    this.payments.set(payment.id, payment);
    return payment;
  }

  private setStatus(payment: Payment, status: ReceiptStatus, substatus: string): void {
    payment.status = status;
    payment.substatus = substatus;
    payment.updated_at = now();
  }

  /** Paid: a first purchase makes its membership (one-time plans end `completed`, renewal plans start `active`). */
  private pay(payment: Payment): void {
    this.setStatus(payment, 'paid', 'succeeded');
    payment.paid_at = payment.updated_at;
    const plan = this.plans.get(payment.plan_id)!;
    let activated: Membership | undefined;
    if (!payment.membership_id && payment.member_id) {
      const at = payment.paid_at;
      const membership: Membership = {
        id: newId('mem'), company_id: payment.company_id, plan_id: plan.id, product_id: plan.product_id, member_id: payment.member_id,
        status: plan.plan_type === 'renewal' ? 'active' : 'completed', metadata: payment.metadata ? { ...payment.metadata } : null,
        checkout_configuration_id: payment.checkout_configuration_id, cancel_at_period_end: false, canceled_at: null,
        renewal_period_start: plan.plan_type === 'renewal' ? at : null, renewal_period_end: plan.plan_type === 'renewal' ? addDays(at, plan.billing_period!) : null,
        currency: plan.currency, created_at: at, updated_at: at,
      };
      this.memberships.set(membership.id, membership);
      payment.membership_id = membership.id;
      activated = membership;
    }
    this.emit(payment.company_id, 'payment.succeeded', this.paymentView(payment));
    if (activated) this.emit(payment.company_id, 'membership.activated', this.membershipView(activated));
  }

  private fail(payment: Payment, message: string): void {
    this.setStatus(payment, 'open', 'failed');
    payment.failure_message = message;
    this.emit(payment.company_id, 'payment.failed', this.paymentView(payment));
  }

  // ── off-session charges (POST /payments) ────────────────────────────────────────────────────────────
  /** Answers the payment at once, still open; it settles on its own a moment later, like Whop's background processing. */
  chargeSaved(companyId: string, input: { member_id: string; payment_method_id: string; plan_id?: string | null; plan?: Parameters<WhopStore['createPlan']>[1] | null; metadata?: Metadata | null }): { payment: Payment; settle: () => void } {
    const member = this.own(this.members, input.member_id, companyId, 'Member');
    const method = this.paymentMethods.get(input.payment_method_id);
    if (!method || method.member_id !== member.id) throw new WhopError(400, 'invalid_request', 'payment_method_id must be connected to the member being charged');
    // Used for one payment on the hosted page, never saved: nothing may charge it without the buyer.
    if (!method.off_session) throw new WhopError(400, 'invalid_request', 'This payment method is not saved for off-session payments: the member must save it first');
    if (!input.plan_id === !input.plan) throw new WhopError(400, 'invalid_request', 'Provide exactly one of plan_id and plan');
    const plan = input.plan_id ? this.own(this.plans, input.plan_id, companyId, 'Plan') : this.createPlan(companyId, input.plan!);
    const payment = this.newPayment(companyId, plan, {
      metadata: input.metadata ?? null, checkoutId: null, memberId: member.id, methodId: method.id, billingReason: 'one_time', total: this.firstCharge(plan),
    });
    payment.status = 'pending';
    return {
      payment,
      // A reset in between forgets the payment: nothing left to settle.
      settle: () => this.payments.get(payment.id) !== payment ? undefined : (method.outcome === 'save_then_fail' || method.outcome === 'decline' ? this.fail(payment, 'The saved card was declined.') : this.pay(payment)),
    };
  }

  // ── refunds ─────────────────────────────────────────────────────────────────────────────────────────
  /** Refunds `partial` (decimal) or what is left; answers the Payment. A fully refunded payment is a 400, as on Whop. */
  refund(companyId: string, id: string, partial?: number | null): Payment {
    const payment = this.own(this.payments, id, companyId, 'Payment');
    if (payment.status !== 'paid') throw new WhopError(400, 'invalid_request', `Payment ${id} cannot be refunded: it is not paid`);
    // What is left counts the refunds still pending too: the same money cannot be asked back twice.
    const pending = payment.refunds.filter((r) => r.status === 'pending').map((r) => -r.amount);
    const left = sumAmounts(payment.currency, payment.total, -payment.refunded_amount, ...pending);
    if (left <= 0) throw new WhopError(400, 'invalid_request', 'This payment has already been refunded');
    const amount = partial === undefined || partial === null ? left : whopAmount(partial, payment.currency);
    if (amount <= 0 || amount > left) throw new WhopError(422, 'invalid_request', `partial_amount must be between 0 and ${left}`);
    const refund: RefundRecord = { id: newId('rf', 15), payment_id: payment.id, amount, currency: payment.currency, status: 'pending', created_at: now() };
    payment.refunds.unshift(refund);
    this.emit(companyId, 'refund.created', this.refundView(refund));
    if (this.pendingRefunds > 0) {
      this.pendingRefunds -= 1;
      return payment;
    }
    refund.status = 'succeeded';
    this.bookRefund(payment, amount);
    this.emit(companyId, 'refund.updated', this.refundView(refund));
    return payment;
  }

  // ── disputes ────────────────────────────────────────────────────────────────────────────────────────
  /** The shopper's bank disputes a paid payment (control plane: Whop learns it from the card network): dispute.created. */
  openDispute(paymentId: string, input: { reason?: string | null; amount?: number | null; status?: 'needs_response' | 'warning_needs_response' }): Dispute {
    const payment = this.own(this.payments, paymentId, undefined, 'Payment');
    if (payment.status !== 'paid') throw new WhopError(409, 'conflict', `Payment ${paymentId} is not paid: there is nothing to dispute`);
    const at = now();
    const dispute: Dispute = {
      id: newId('dspt'), company_id: payment.company_id, payment_id: payment.id, amount: whopAmount(input.amount ?? payment.total, payment.currency), currency: payment.currency,
      reason: input.reason ?? 'fraudulent', status: input.status ?? 'needs_response', needs_response_by: addDays(at, 7), created_at: at,
    };
    this.disputes.set(dispute.id, dispute);
    this.markDisputed(payment, dispute.status);
    this.emit(payment.company_id, 'dispute.created', this.disputeView(dispute));
    return dispute;
  }

  /** The dispute moves on (evidence under review, won, lost, closed): dispute.updated. */
  updateDispute(id: string, status: DisputeStatus): Dispute {
    const dispute = this.own(this.disputes, id, undefined, 'Dispute');
    dispute.status = status;
    const payment = this.payments.get(dispute.payment_id);
    if (payment) this.markDisputed(payment, status);
    this.emit(dispute.company_id, 'dispute.updated', this.disputeView(dispute));
    return dispute;
  }

  /**
   * The payment's friendly status follows its dispute: Whop's FriendlyReceiptStatus has `dispute_<DisputeStatus>` for
   * each dispute status but `other` (@whop/sdk src/resources/shared.ts, disputes.ts DisputeStatuses); the receipt
   * itself stays paid. A refunded payment keeps its refund substatus.
   */
  private markDisputed(payment: Payment, status: DisputeStatus): void {
    if (status === 'other' || payment.substatus === 'refunded' || payment.substatus === 'partially_refunded') return;
    this.setStatus(payment, payment.status, `dispute_${status}`);
  }

  /** As @whop/sdk's Dispute (src/resources/disputes.ts:98): evidence fields empty, the payment summarised without metadata. */
  disputeView(d: Dispute) {
    const p = this.payments.get(d.payment_id)!;
    const member = p.member_id ? this.members.get(p.member_id) : undefined;
    const method = p.payment_method_id ? this.paymentMethods.get(p.payment_method_id) : undefined;
    const plan = this.plans.get(p.plan_id);
    const product = p.product_id ? this.products.get(p.product_id) : undefined;
    const editable = d.status === 'needs_response' || d.status === 'warning_needs_response';
    return {
      id: d.id, access_activity_log: null, amount: d.amount, billing_address: null, cancellation_policy_attachment: null, cancellation_policy_disclosure: null,
      company: this.companyRef(d.company_id), created_at: d.created_at, currency: d.currency, customer_communication_attachment: null,
      customer_email_address: member?.email ?? null, customer_name: null, editable, needs_response_by: editable ? d.needs_response_by : null, notes: null,
      payment: {
        id: p.id, billing_reason: p.billing_reason, card_brand: method?.brand ?? null, card_last4: method?.last4 ?? null, created_at: p.created_at, currency: p.currency,
        dispute_alerted_at: null, member: member ? { id: member.id, phone: null } : null,
        membership: p.membership_id ? { id: p.membership_id, status: this.memberships.get(p.membership_id)?.status ?? 'completed' } : null,
        paid_at: p.paid_at, payment_method_type: method ? 'card' : null, subtotal: p.subtotal, total: p.total, usd_total: p.total,
        user: member ? { id: member.user_id, email: member.email, name: null, username: member.user_id } : null,
      },
      plan: plan ? { id: plan.id } : null, product: product ? { id: product.id, title: product.title } : null, product_description: null, reason: d.reason,
      refund_policy_attachment: null, refund_policy_disclosure: null, refund_refusal_explanation: null, service_date: null, status: d.status,
      uncategorized_attachment: null, visa_rdr: false,
    };
  }

  // ── memberships ─────────────────────────────────────────────────────────────────────────────────────
  cancelMembership(companyId: string, id: string, mode: 'at_period_end' | 'immediate'): Membership {
    const membership = this.own(this.memberships, id, companyId, 'Membership');
    if (membership.status === 'canceled' || membership.status === 'expired' || membership.status === 'completed') return membership;
    membership.updated_at = now();
    if (mode === 'immediate') {
      Object.assign(membership, { status: 'canceled', canceled_at: membership.updated_at, cancel_at_period_end: false });
      this.emit(companyId, 'membership.deactivated', this.membershipView(membership));
    } else if (!membership.cancel_at_period_end) {
      Object.assign(membership, { cancel_at_period_end: true, canceled_at: membership.updated_at });
      this.emit(companyId, 'membership.cancel_at_period_end_changed', this.membershipView(membership));
    }
    return membership;
  }

  /** Control plane: Whop bills the next period of a renewal membership on its saved card. */
  renew(id: string, outcome?: 'succeeded' | 'failed'): { membership: Membership; payment: Payment } {
    const membership = this.own(this.memberships, id, undefined, 'Membership');
    if (membership.status !== 'active' && membership.status !== 'past_due') throw new WhopError(422, 'invalid_request', `Membership ${id} cannot renew: it is ${membership.status}`);
    const plan = this.plans.get(membership.plan_id)!;
    const last = [...this.payments.values()].filter((p) => p.membership_id === id).at(-1);
    const payment = this.newPayment(membership.company_id, plan, {
      metadata: membership.metadata, checkoutId: null, memberId: membership.member_id, methodId: last?.payment_method_id ?? newId('payt'),
      billingReason: 'subscription_cycle', total: plan.renewal_price, membershipId: membership.id,
    });
    if ((outcome ?? this.renewalOutcomes.get(id) ?? 'succeeded') === 'succeeded') {
      const start = membership.renewal_period_end && membership.renewal_period_end > now() ? membership.renewal_period_end : now();
      const wasValid = membership.status === 'active';
      Object.assign(membership, { status: 'active', renewal_period_start: start, renewal_period_end: addDays(start, plan.billing_period ?? 30), updated_at: now() });
      this.pay(payment);
      if (!wasValid) this.emit(membership.company_id, 'membership.activated', this.membershipView(membership));
    } else {
      const wasActive = membership.status === 'active';
      Object.assign(membership, { status: 'past_due', updated_at: now() });
      this.fail(payment, 'The renewal charge was declined.');
      if (wasActive) this.emit(membership.company_id, 'membership.deactivated', this.membershipView(membership));
    }
    return { membership, payment };
  }

  // ── webhooks ────────────────────────────────────────────────────────────────────────────────────────
  createWebhook(
    companyId: string,
    input: { url: string; events?: string[] | null; api_version?: 'v1' | 'v2' | 'v5' | null; enabled?: boolean | null; child_resource_events?: boolean | null },
    via: Webhook['created_via'] = 'api',
  ): Webhook {
    if ([...this.webhooks.values()].filter((w) => w.company_id === companyId).length >= MAX_WEBHOOKS) throw new WhopError(400, 'invalid_request', `At most ${MAX_WEBHOOKS} webhooks per company`);
    const refused = via === 'api' ? [...new Set(input.events ?? [])].filter((name) => this.refusedApiEvents.has(name)) : [];
    // Whop's wording is not published: the answer names the refused events in Whop's error shape.
    if (refused.length) throw new WhopError(400, 'invalid_request', `Invalid events for a webhook created through the API: ${refused.join(', ')}`);
    const webhook: Webhook = {
      id: newId('hook', 13), company_id: companyId, url: input.url, events: input.events ? [...new Set(input.events)] : [], api_version: input.api_version ?? 'v1',
      enabled: input.enabled ?? true, child_resource_events: input.child_resource_events ?? false, webhook_secret: `ws_${randomBytes(24).toString('hex')}`, created_at: now(),
      created_via: via,
    };
    this.webhooks.set(webhook.id, webhook);
    return webhook;
  }

  /** The enabled endpoints of a company subscribed to this event type (an endpoint without events gets every type). */
  webhookTargets(companyId: string, type: string): Webhook[] {
    return [...this.webhooks.values()].filter((w) => w.company_id === companyId && w.enabled && (w.events.length === 0 || w.events.includes(type)));
  }

  // ── the objects as the API and webhooks show them ───────────────────────────────────────────────────
  companyRef(id: string) {
    const company = this.company(id);
    return { id, title: company?.title ?? 'Company', route: company?.route ?? id };
  }

  planView(plan: Plan) {
    return {
      id: plan.id, account: { id: plan.company_id }, product: plan.product_id ? { id: plan.product_id } : null, plan_type: plan.plan_type,
      initial_price: plan.initial_price, renewal_price: plan.renewal_price, billing_period: plan.billing_period, currency: plan.currency,
      visibility: plan.visibility, release_method: 'buy_now', title: plan.title, description: null, metadata: plan.metadata,
      trial_period_days: null, expiration_days: null, stock: null, unlimited_stock: true, member_count: 0,
      purchase_url: `/checkout/${plan.id}/`, created_at: plan.created_at, updated_at: plan.updated_at,
    };
  }

  checkoutView(checkout: CheckoutConfiguration, publicBase: string) {
    const plan = checkout.plan_id ? this.plans.get(checkout.plan_id)! : null;
    return {
      id: checkout.id, account_id: checkout.company_id, mode: checkout.mode, currency: null, affiliate_code: null, metadata: checkout.metadata,
      created_at: checkout.created_at, updated_at: checkout.updated_at, payment_method_configuration: checkout.payment_method_configuration, three_ds_level: null, redirect_url: checkout.redirect_url,
      plan: plan ? {
        id: plan.id, plan_type: plan.plan_type, release_method: 'buy_now', visibility: plan.visibility, currency: plan.currency, initial_price: plan.initial_price,
        renewal_price: plan.renewal_price, billing_period: plan.billing_period, expiration_days: null, trial_period_days: null, adaptive_pricing_enabled: false, three_ds_level: null,
      } : null,
      purchase_url: plan ? `${publicBase}/checkout/${plan.id}/?session=${checkout.id}` : `${publicBase}/checkout/setup/?session=${checkout.id}`,
    };
  }

  paymentView(p: Payment) {
    const member = p.member_id ? this.members.get(p.member_id) : undefined;
    const method = p.payment_method_id ? this.paymentMethods.get(p.payment_method_id) : undefined;
    const membership = p.membership_id ? this.memberships.get(p.membership_id) : undefined;
    const product = p.product_id ? this.products.get(p.product_id) : undefined;
    const plan = this.plans.get(p.plan_id);
    return {
      id: p.id, status: p.status, substatus: p.substatus, total: p.total, subtotal: p.subtotal, usd_total: p.total, currency: p.currency,
      settlement_amount: p.total, settlement_currency: p.currency, amount_after_fees: percentOfAmount(p.total, 97, p.currency), tax_amount: 0,
      refunded_amount: p.refunded_amount, refunded_at: p.refunded_at, refundable: p.status === 'paid' && p.refunded_amount < p.total,
      retryable: p.substatus === 'failed', voidable: false, auto_refunded: false, billing_reason: p.billing_reason,
      checkout_configuration_id: p.checkout_configuration_id, metadata: p.metadata, created_at: p.created_at, updated_at: p.updated_at, paid_at: p.paid_at,
      last_payment_attempt: p.updated_at, next_payment_attempt: null, failure_message: p.failure_message, payments_failed: p.substatus === 'failed' ? 1 : 0,
      company: this.companyRef(p.company_id),
      plan: plan ? { id: plan.id, internal_notes: null, metadata: plan.metadata } : null,
      product: product ? { id: product.id, title: product.title, route: product.route, metadata: product.metadata } : null,
      member: member ? { id: member.id, phone: null } : null,
      user: member ? { id: member.user_id, email: member.email, name: null, username: member.user_id } : null,
      membership: membership ? { id: membership.id, status: membership.status, phone_number: null } : null,
      payment_method: method ? { id: method.id, created_at: method.created_at, payment_method_type: 'card', card: { brand: method.brand, last4: method.last4, exp_month: 12, exp_year: 2034 } } : null,
      payment_method_type: method ? 'card' : null, card_brand: method?.brand ?? null, card_last4: method?.last4 ?? null,
      refunds: p.refunds.map(({ payment_id: _p, ...r }) => r), disputes: [], resolutions: [], promo_code: null,
    };
  }

  paymentMethodView(m: PaymentMethod) {
    return {
      id: m.id, typename: 'CardPaymentMethod' as const, created_at: m.created_at, payment_method_type: 'card' as const,
      card: { brand: m.brand, last4: m.last4, exp_month: 12, exp_year: 2034, three_ds_verified: m.outcome === 'authenticate' },
    };
  }

  setupIntentView(i: SetupIntent) {
    const method = this.paymentMethods.get(i.payment_method_id)!;
    const member = this.members.get(i.member_id);
    return {
      id: i.id, status: 'succeeded', created_at: i.created_at, error_message: null, metadata: i.metadata, three_ds_verified: false,
      checkout_configuration: { id: i.checkout_configuration_id }, company: { id: i.company_id },
      member: member ? { id: member.id, user: { id: member.user_id, email: member.email, name: null, username: member.user_id } } : null,
      payment_method: { id: method.id, created_at: method.created_at, payment_method_type: 'card', card: { brand: method.brand, last4: method.last4, exp_month: 12, exp_year: 2034 } },
    };
  }

  membershipView(m: Membership) {
    const member = this.members.get(m.member_id);
    return {
      id: m.id, status: m.status, cancel_at_period_end: m.cancel_at_period_end, canceled_at: m.canceled_at, cancel_option: null, cancellation_reason: null,
      renewal_period_start: m.renewal_period_start, renewal_period_end: m.renewal_period_end, currency: m.currency, metadata: m.metadata,
      checkout_configuration_id: m.checkout_configuration_id, manage_url: null, license_key: null, payment_collection_paused: false, promo_code: null,
      company: this.companyRef(m.company_id), plan: { id: m.plan_id }, product: m.product_id ? { id: m.product_id, title: this.products.get(m.product_id)?.title ?? '' } : null,
      member: { id: m.member_id }, user: member ? { id: member.user_id, email: member.email, name: null, username: member.user_id } : null,
      joined_at: m.created_at, created_at: m.created_at, updated_at: m.updated_at,
    };
  }

  refundView(r: RefundRecord) {
    const payment = this.payments.get(r.payment_id)!;
    return {
      id: r.id, amount: r.amount, currency: r.currency, status: r.status, created_at: r.created_at, provider: 'stripe', provider_created_at: r.created_at,
      reference_status: null, reference_type: null, reference_value: null,
      payment: {
        id: payment.id, metadata: payment.metadata, total: payment.total, subtotal: payment.subtotal, currency: payment.currency, billing_reason: payment.billing_reason,
        membership: payment.membership_id ? { id: payment.membership_id, status: this.memberships.get(payment.membership_id)?.status ?? 'completed' } : null,
        member: payment.member_id ? { id: payment.member_id, phone: null } : null, paid_at: payment.paid_at,
      },
    };
  }

  /** Control plane: the current object behind an id, as an event's `data`. */
  eventSubject(id: string): { companyId: string; data: unknown } {
    if (id.startsWith('dspt_')) {
      const d = this.own(this.disputes, id, undefined, 'Dispute');
      return { companyId: d.company_id, data: this.disputeView(d) };
    }
    if (id.startsWith('mem_')) {
      const m = this.own(this.memberships, id, undefined, 'Membership');
      return { companyId: m.company_id, data: this.membershipView(m) };
    }
    const p = this.own(this.payments, id, undefined, 'Payment');
    return { companyId: p.company_id, data: this.paymentView(p) };
  }

  /** Control plane: move a payment's state without any webhook (reconciliation tests). */
  forcePayment(id: string, state: 'paid' | 'failed' | 'refunded'): Payment {
    const payment = this.own(this.payments, id, undefined, 'Payment');
    if (state === 'paid') Object.assign(payment, { status: 'paid', substatus: 'succeeded', paid_at: payment.paid_at ?? now() });
    if (state === 'failed') Object.assign(payment, { status: 'open', substatus: 'failed', failure_message: 'Your card was declined.' });
    if (state === 'refunded') {
      // Refunded in full without a word: the rest becomes one succeeded refund on its list, as a dashboard refund would.
      const left = sumAmounts(payment.currency, payment.total, -payment.refunded_amount);
      if (left > 0) payment.refunds.unshift({ id: newId('rf', 15), payment_id: payment.id, amount: left, currency: payment.currency, status: 'succeeded', created_at: now() });
      Object.assign(payment, { status: 'paid', substatus: 'refunded', refunded_amount: payment.total, refunded_at: now() });
    }
    payment.updated_at = now();
    return payment;
  }

  /** Refunds made while this is above 0 stay `pending` (the card network has not confirmed them), one each. */
  pendingRefunds = 0;

  /** Control plane: a pending refund settles (succeeded or failed) without any webhook: refund.updated is not sent. */
  settleRefund(id: string, status: 'succeeded' | 'failed'): RefundRecord {
    const payment = [...this.payments.values()].find((p) => p.refunds.some((r) => r.id === id));
    const refund = payment?.refunds.find((r) => r.id === id);
    if (!payment || !refund) throw new WhopError(404, 'not_found', `Refund ${id} not found`);
    if (refund.status !== 'pending') throw new WhopError(409, 'conflict', `Refund ${id} is ${refund.status}`);
    refund.status = status;
    if (status === 'succeeded') this.bookRefund(payment, refund.amount);
    return refund;
  }

  /** The payment's refunded amount and substatus follow a refund that succeeded. */
  private bookRefund(payment: Payment, amount: number): void {
    payment.refunded_amount = sumAmounts(payment.currency, payment.refunded_amount, amount);
    payment.refunded_at = now();
    this.setStatus(payment, 'paid', payment.refunded_amount >= payment.total ? 'refunded' : 'partially_refunded');
  }
}

function addDays(iso: string, days: number): string {
  return new Date(new Date(iso).getTime() + days * 24 * 60 * 60 * 1000).toISOString();
}
