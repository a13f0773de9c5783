// The payload of the processor's webhooks as the service receives it on
// POST /webhooks/processor/payment-update. Only what the interface contract guarantees is required
// (event, data.id, data.metadata); the rest is optional so a payload from the real platform with fewer
// fields still parses. Unknown fields are tolerated (and dropped by the parse).
import { z } from 'zod';

/** Every event the sandbox sends. The dotted names are older spellings the service must also accept. */
export const PROCESSOR_EVENTS = [
  'payment_succeeded',
  'payment_failed',
  'payment_refunded',
  'invoice_paid',
  'invoice_payment_failed',
  'invoice_refunded',
  'membership_activated',
  'membership_went_valid',
  'membership_went_invalid',
  'payment.failed',
  'payment.refunded',
] as const;

export type ProcessorEventName = (typeof PROCESSOR_EVENTS)[number];

export const webhookMetadataSchema = z.looseObject({ checkout_session_token: z.string().optional() });

export const webhookPayloadSchema = z.object({
  /** Event id (evt_...): the same id on every delivery of one event, so processing can be idempotent. */
  id: z.string().min(1).optional(),
  event: z.string().min(1),
  created_at: z.string().optional(),
  data: z.object({
    /** The payment (pay_...) or, for membership_* events, the membership (mem_...). */
    id: z.string().min(1),
    status: z.string().optional(),
    amount: z.number().int().optional(),
    currency: z.string().optional(),
    metadata: webhookMetadataSchema,
    membership_id: z.string().optional(),
    plan_id: z.string().optional(),
  }),
});

export type ProcessorWebhookPayload = z.infer<typeof webhookPayloadSchema>;

/** Parses a raw webhook body (already signature-checked). Returns undefined for anything not a payload. */
export function parseWebhookPayload(rawBody: Buffer | string): ProcessorWebhookPayload | undefined {
  let json: unknown;
  try {
    json = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = webhookPayloadSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
