// The payload of every merchant webhook event, as zod schemas: the payload is built through them (model/
// merchant-webhooks.ts) and the OpenAPI document's webhooks section describes them from the same source
// (api/schemas/merchant-webhooks.ts). Field names are snake_case, as in every payload (docs/webhooks.md).
import { z } from 'zod';
import type { MerchantEventType } from './merchant-webhooks.js';

const iso = z.iso.datetime({ offset: true }).describe('ISO 8601 time');
const minor = z.number().int().describe('Integer minor units of `currency` (cents)');
const currency = z.string().regex(/^[A-Z]{3}$/).describe('ISO 4217 code, upper case');

export const sessionEventData = z.object({
  token: z.string().describe('The checkout session token (cs_…)'),
  status: z.enum(['COMPLETED', 'REFUNDED', 'ABANDONED']).describe('The status the session reached: the fact this event reports'),
  currency,
  subtotal_minor: minor.describe('Cart items + accepted order bumps, in minor units'),
  shipping_minor: minor.nullable().describe('Null until the shopper chose a shipping rate'),
  discount_minor: minor,
  total_minor: minor.nullable().describe('What the shopper pays; null until the shopper entered their details'),
  payment_method: z.enum(['card', 'cod', 'free']).nullable().describe('card (the processor), cod (cash on delivery), free (nothing to pay); null before a payment started'),
  customer_email: z.string().nullable(),
  store_order_id: z.string().nullable().describe('The order on the store, when it exists at the time of the event (it is created right after COMPLETED: often null in session.completed)'),
  processor_payment_id: z.string().nullable().describe('The processor\'s payment (Whop pay_… / checkout ch_…)'),
  created_at: iso.describe('When the session was created'),
  completed_at: iso.nullable(),
  refunded_at: iso.nullable(),
}).describe('A checkout session, as the merchant sees it in the orders API');

export const disputeEventData = z.object({
  dispute_id: z.string().describe('The processor\'s dispute id (Whop dspt_…)'),
  status: z.string().describe('The processor\'s dispute status (Whop: warning_needs_response, warning_under_review, warning_closed, needs_response, under_review, won, lost, closed, other); dispute.resolved carries a final one: won, lost, closed or warning_closed'),
  amount_minor: minor.describe('The disputed amount in minor units'),
  currency,
  reason: z.string().nullable(),
  session_token: z.string().describe('The checkout session whose payment is disputed'),
  processor_payment_id: z.string().describe('The disputed payment'),
}).describe('A dispute (chargeback) on the payment of one of the merchant\'s checkout sessions');

export const testEventData = z.object({
  endpoint_id: z.string().describe('The endpoint whose "send test event" sent it'),
  message: z.string(),
}).describe('Sent by the dashboard\'s (or the API\'s) "send test event": to that endpoint only');

const envelope = <T extends MerchantEventType, D extends z.ZodType>(type: T, data: D, description: string) =>
  z.object({
    id: z.string().regex(/^evt_[A-Za-z0-9]+$/).describe('The event id (evt_…). The webhook-id header (msg_…) is the id of its delivery to one endpoint: dedupe on that'),
    type: z.literal(type),
    created_at: iso.describe('When the fact happened (recorded)'),
    data,
  }).describe(description);

/** Every event payload, by type: the body of each delivery (`webhooks` of the OpenAPI document). */
export const merchantEventSchemas = {
  'session.completed': envelope('session.completed', sessionEventData, 'The processor confirmed the payment of a checkout session (or nothing was to be paid). Once per session.'),
  'session.refunded': envelope('session.refunded', sessionEventData, 'The processor confirmed the full refund of a completed session. Once per session.'),
  'session.abandoned': envelope('session.abandoned', sessionEventData, 'The session had no progress for the abandonment delay (24 hours by default), or its payment never got a result. Once per session.'),
  'dispute.created': envelope('dispute.created', disputeEventData, 'The shopper\'s bank opened a dispute on a session\'s payment. Once per dispute.'),
  'dispute.resolved': envelope('dispute.resolved', disputeEventData, 'A dispute reached a final status (won, lost, closed, warning_closed). Once per dispute.'),
  'webhook.test': envelope('webhook.test', testEventData, 'A test event, sent on demand to one endpoint.'),
} as const satisfies Record<MerchantEventType, z.ZodType>;

export type MerchantEventPayload<T extends MerchantEventType = MerchantEventType> = z.output<(typeof merchantEventSchemas)[T]>;
export type SessionEventData = z.output<typeof sessionEventData>;
export type DisputeEventData = z.output<typeof disputeEventData>;

