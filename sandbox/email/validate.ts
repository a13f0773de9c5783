// Postmark's validation of an outgoing message, with its real error codes
// (https://postmarkapp.com/developer/api/overview#error-codes). Every rejection is a 422 `{ErrorCode, Message}`.
import { z } from 'zod';

export const ERROR = {
  badToken: 10,
  invalidEmailRequest: 300,
  invalidJson: 402,
  invalidRequestFields: 403,
  inactiveRecipient: 406,
  jsonRequired: 409,
  tooManyBatchMessages: 410,
  templateQuery: 1100,
  templateNotFound: 1101,
  templateLimit: 1105,
  missingTemplateField: 1120,
  invalidTemplateField: 1122,
  streamNotFound: 1235,
  streamCannotSend: 1236,
} as const;

/** A request Postmark refuses; the route answers it as 422 (or as one entry of a batch answer). */
export class Rejection extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
  toJSON(): { ErrorCode: number; Message: string } {
    return { ErrorCode: this.errorCode, Message: this.message };
  }
}

/** Addresses at these domains behave like recipients that hard-bounced before (Postmark's "inactive"). */
export const INACTIVE_DOMAINS = ['bounce.test'];
export const MESSAGE_STREAMS = ['outbound', 'broadcast'];
const MAX_RECIPIENTS = 50;
const METADATA_LIMITS = { fields: 10, key: 20, value: 80 };

const text = z.string().nullish();
const commonFields = {
  From: text,
  To: text,
  Cc: text,
  Bcc: text,
  ReplyTo: text,
  Tag: text,
  MessageStream: text,
  Metadata: z.record(z.string(), z.string()).nullish(),
  Headers: z.array(z.object({ Name: z.string(), Value: z.string() })).nullish(),
  TrackOpens: z.boolean().nullish(),
  TrackLinks: z.enum(['None', 'HtmlAndText', 'HtmlOnly', 'TextOnly']).nullish(),
  Attachments: z.array(z.object({ Name: z.string(), Content: z.string(), ContentType: z.string(), ContentID: z.string().nullish() })).nullish(),
};
export const emailSchema = z.object({ ...commonFields, Subject: text, HtmlBody: text, TextBody: text });
export const templatedEmailSchema = z.object({
  ...commonFields,
  TemplateId: z.number().int().nullish(),
  TemplateAlias: text,
  TemplateModel: z.record(z.string(), z.unknown()),
  InlineCss: z.boolean().nullish(),
});
export type EmailInput = z.output<typeof emailSchema>;
export type TemplatedEmailInput = z.output<typeof templatedEmailSchema>;

export function parseShape<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((i) => `'${i.path.join('.') || 'body'}' ${i.message}`).join('; ');
  throw new Rejection(ERROR.invalidRequestFields, `Invalid request field(s): ${fields}.`);
}

// Postmark's own patterns for the two halves of an address (support article 1180).
const MAILBOX = /^[a-z0-9.!#$%&'`*+\-/=^_{}|~]+$/i;
const DOMAIN = /^((\.)?[a-zA-Z0-9-])+$/;

/** Splits "a@x.com, \"Doe, Jane\" <jane@x.com>" into its addresses, refusing illegal ones like Postmark. */
export function parseAddressList(field: string, value: string | null | undefined): string[] {
  if (!value || !value.trim()) return [];
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let angle = false;
  for (const c of value) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === '<') angle = true;
    else if (!quoted && c === '>') angle = false;
    if (c === ',' && !quoted && !angle) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts
    .map((p) => p.trim())
    .filter(Boolean)
    .map((part) => {
      const address = (/<([^>]*)>\s*$/.exec(part)?.[1] ?? part).trim();
      const at = address.lastIndexOf('@');
      if (at === -1) throw new Rejection(ERROR.invalidEmailRequest, `Error parsing '${field}': Illegal email address '${address}'. It must contain the '@' symbol.`);
      const mailbox = address.slice(0, at);
      const domain = address.slice(at + 1);
      if (!MAILBOX.test(mailbox) || !DOMAIN.test(domain) || !domain.includes('.')) {
        throw new Rejection(ERROR.invalidEmailRequest, `Error parsing '${field}': Illegal email address '${address}'.`);
      }
      return address;
    });
}

export interface Attachment {
  Name: string;
  ContentType: string;
  ContentLength: number;
  Content: string;
}

/** A message as Postmark accepted it (PascalCase, like Postmark's own message details). */
export interface OutboundMessage {
  MessageID: string;
  SubmittedAt: string;
  MessageStream: string;
  From: string;
  To: string;
  Cc: string;
  Bcc: string;
  ReplyTo: string;
  Subject: string;
  HtmlBody: string;
  TextBody: string;
  Tag: string;
  Metadata: Record<string, string>;
  Headers: Array<{ Name: string; Value: string }>;
  Attachments: Attachment[];
  /** Addresses the message was delivered to (inactive ones are skipped). */
  Recipients: string[];
  TemplateId?: number;
  TemplateAlias?: string | null;
  TemplateModel?: Record<string, unknown>;
}

export type AcceptedMessage = Omit<OutboundMessage, 'MessageID' | 'SubmittedAt'>;

/** Applies Postmark's rules to a (possibly template-rendered) message; throws a Rejection on the first failure. */
export function validateEmail(input: EmailInput, inactiveDomains: readonly string[] = INACTIVE_DOMAINS): AcceptedMessage {
  const from = parseAddressList('From', input.From);
  if (from.length !== 1) throw new Rejection(ERROR.invalidEmailRequest, "Invalid 'From' address: exactly one sender address is required.");
  const recipients = [...parseAddressList('To', input.To), ...parseAddressList('Cc', input.Cc), ...parseAddressList('Bcc', input.Bcc)];
  if (recipients.length === 0) throw new Rejection(ERROR.invalidEmailRequest, 'Zero recipients specified');
  if (recipients.length > MAX_RECIPIENTS) throw new Rejection(ERROR.invalidEmailRequest, `Maximum of ${MAX_RECIPIENTS} recipients allowed per email message.`);
  parseAddressList('ReplyTo', input.ReplyTo);
  if (!input.Subject?.trim()) throw new Rejection(ERROR.invalidEmailRequest, "The 'Subject' field is required.");
  if (!input.HtmlBody && !input.TextBody) throw new Rejection(ERROR.invalidEmailRequest, 'Provide either email TextBody or HtmlBody or both.');

  const stream = input.MessageStream || 'outbound';
  if (stream === 'inbound') throw new Rejection(ERROR.streamCannotSend, "Sending is not supported on the 'inbound' message stream.");
  if (!MESSAGE_STREAMS.includes(stream)) throw new Rejection(ERROR.streamNotFound, `The message stream for the provided 'ID' (${stream}) was not found.`);

  const metadata = input.Metadata ?? {};
  const entries = Object.entries(metadata);
  if (entries.length > METADATA_LIMITS.fields || entries.some(([k, v]) => !k || k.length > METADATA_LIMITS.key || v.length > METADATA_LIMITS.value)) {
    throw new Rejection(
      ERROR.invalidEmailRequest,
      `Metadata allows at most ${METADATA_LIMITS.fields} fields, names of 1-${METADATA_LIMITS.key} characters and values of up to ${METADATA_LIMITS.value} characters.`,
    );
  }

  const isInactive = (address: string) => inactiveDomains.includes(address.slice(address.lastIndexOf('@') + 1).toLowerCase());
  const active = recipients.filter((r) => !isInactive(r));
  if (active.length === 0) {
    throw new Rejection(
      ERROR.inactiveRecipient,
      `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${recipients.join(', ')}. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression.`,
    );
  }

  return {
    MessageStream: stream,
    From: input.From ?? '',
    To: input.To ?? '',
    Cc: input.Cc ?? '',
    Bcc: input.Bcc ?? '',
    ReplyTo: input.ReplyTo ?? '',
    Subject: input.Subject,
    HtmlBody: input.HtmlBody ?? '',
    TextBody: input.TextBody ?? '',
    Tag: input.Tag ?? '',
    Metadata: metadata,
    Headers: input.Headers ?? [],
    Attachments: (input.Attachments ?? []).map((a) => ({ Name: a.Name, ContentType: a.ContentType, Content: a.Content, ContentLength: Buffer.byteLength(a.Content, 'base64') })),
    Recipients: active.map((r) => r.toLowerCase()),
  };
}
