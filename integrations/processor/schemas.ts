// Whop's objects as our client reads them (API v1, @whop/sdk 0.0.42; docs/processor.md). Only the fields the
// service uses are checked; everything else passes (Whop adds fields without notice, and every field the SDK
// types as optional may be null). Whop writes money in decimal major units with lowercase currencies; the
// client turns them into our integer minor units and ISO upper case (domain/money) at this border.
import { z } from 'zod';

const id = (prefix: string) => z.string().startsWith(prefix);
const ref = (prefix: string) => z.looseObject({ id: id(prefix) }).nullish();

export const accountSchema = z.looseObject({ id: id('biz_'), title: z.string().nullish() });
export const productSchema = z.looseObject({ id: id('prod_') });
export const planSchema = z.looseObject({ id: id('plan_') });
export const createdWebhookSchema = z.looseObject({ id: id('hook_'), webhook_secret: z.string().min(8) });
export const checkoutConfigurationSchema = z.looseObject({ id: id('ch_'), purchase_url: z.string().url() });

/** Whop's receipt status (status) and its finer substatus (succeeded, failed, refunded, …). */
export const paymentSchema = z.looseObject({
  id: id('pay_'),
  status: z.string().nullish(),
  substatus: z.string().nullish(),
  total: z.number().nullish(),
  currency: z.string().nullish(),
  refunded_amount: z.number().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  checkout_configuration_id: z.string().nullish(),
  billing_reason: z.string().nullish(),
  failure_message: z.string().nullish(),
  member: ref('mber_'),
  membership: ref('mem_'),
  payment_method: z.looseObject({ id: z.string() }).nullish(),
  dispute_alerted_at: z.string().nullish(),
  /** Newest first, failed ones included. */
  refunds: z.array(z.looseObject({ id: z.string(), status: z.string().nullish() })).nullish(),
});

/** A refund (@whop/sdk src/resources/refunds.ts RefundListResponse): amount in decimal major units, lowercase currency. */
export const refundSchema = z.looseObject({
  id: id('rf_'),
  amount: z.number().nonnegative(),
  currency: z.string().length(3),
  status: z.string(),
  created_at: z.string(),
  payment: z.looseObject({ id: id('pay_') }).nullish(),
});

/** A saved payment method (@whop/sdk src/resources/payment-methods.ts PaymentMethodListResponse). */
export const paymentMethodSchema = z.looseObject({
  id: z.string().min(1),
  payment_method_type: z.string().nullish(),
  created_at: z.string().nullish(),
});

export const membershipSchema = z.looseObject({
  id: id('mem_'),
  status: z.string(),
  cancel_at_period_end: z.boolean().nullish(),
  renewal_period_start: z.string().nullish(),
  renewal_period_end: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  plan: ref('plan_'),
});

export type WhopPayment = z.infer<typeof paymentSchema>;
export type WhopMembership = z.infer<typeof membershipSchema>;

/** A dispute (@whop/sdk src/resources/disputes.ts DisputeListResponse): amount in decimal major units, lowercase currency. */
export const disputeSchema = z.looseObject({
  id: z.string().min(1),
  amount: z.number().nonnegative(),
  currency: z.string().min(1),
  status: z.string().min(1),
  reason: z.string().nullish(),
  created_at: z.string().nullish(),
  payment: z.looseObject({ id: id('pay_') }).nullish(),
});

/** One page of a list: `{ data, page_info }` (@whop/sdk src/core/pagination.ts CursorPage). */
export const companyPageSchema = <S extends z.ZodType>(item: S) => z.looseObject({
  data: z.array(item),
  page_info: z.looseObject({ end_cursor: z.string().nullish(), has_next_page: z.boolean().nullish() }),
});

/**
 * Whop's Domain (the Domains API; whop-sdk 2.6.0, the official Python SDK: whop_sdk/types/domain.py, domain_apple_pay.py,
 * domain_issue.py, domain_dns_record.py): its normalized hostname `domain`, the `apple_pay` capability's `state`
 * (`null` when not enrolled, or not visible to a key without `domain:read`), and the `issues` saying what to do, each
 * with its capability, code, message, optional code block and DNS records. Unknown states, codes and record types pass
 * as strings (the SDK's own enums are open: `typing.Union[Literal[…], typing.Any]`); we act only on the known ones.
 */
const dnsRecordSchema = z.looseObject({ name: z.string(), type: z.string(), value: z.string() });
export const domainIssueSchema = z.looseObject({
  capability: z.string(),
  code: z.string(),
  message: z.string(),
  code_block: z.string().nullish(),
  dns_records: z.array(dnsRecordSchema),
});
export const domainSchema = z.looseObject({
  id: id('dom_'),
  domain: z.string().min(1),
  account_id: z.string().nullish(),
  status: z.string().nullish(),
  apple_pay: z.looseObject({ state: z.string() }).nullish(),
  issues: z.array(domainIssueSchema),
});
export const domainListSchema = z.looseObject({ data: z.array(domainSchema) });
