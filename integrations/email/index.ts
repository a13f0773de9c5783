// Postmark client, built on the official `postmark` package: the same code talks to api.postmarkapp.com in
// production and to the sandbox simulator locally; only `apiUrl` and `serverToken` differ.
// Every failure becomes an IntegrationError('email', kind): 401 → unauthorized, 422 → rejected (Postmark's
// ErrorCode kept in `remote`), 429 → rate_limited, 5xx or network → unavailable, no answer in time → timeout.
// Postmark has no idempotency keys: callers record what they sent and must not resend on their own.
import { Errors, ServerClient } from 'postmark';
import { IntegrationError, type IntegrationErrorKind } from '../errors.js';

export interface EmailClientOptions {
  serverToken: string;
  /** e.g. http://127.0.0.1:4040 (sandbox) or https://api.postmarkapp.com */
  apiUrl: string;
  /** Message stream used when a message names none (default 'outbound', Postmark's transactional stream). */
  messageStream?: string;
  /** Per-call time-out in ms (default 10 s). */
  timeoutMs?: number;
  /** Transport override (e.g. a fetch bound to an egress proxy). */
  fetch?: typeof fetch;
}

interface Envelope {
  from: string;
  to: string | string[];
  cc?: string | string[];
  bcc?: string | string[];
  replyTo?: string;
  tag?: string;
  /** Up to 10 string fields, returned by Postmark's webhooks and searchable in the sandbox mailbox. */
  metadata?: Record<string, string>;
  headers?: Record<string, string>;
  messageStream?: string;
}

export interface EmailMessage extends Envelope {
  subject: string;
  html?: string;
  text?: string;
}

export interface TemplatedEmail extends Envelope {
  /** Template alias (string) or numeric TemplateId. */
  template: string | number;
  model: Record<string, unknown>;
}

export interface TemplateDefinition {
  alias: string;
  name: string;
  subject: string;
  html?: string;
  text?: string;
}

export interface SentEmail {
  messageId: string;
  submittedAt: string;
  to: string;
}

export type BatchResult = ({ ok: true } & SentEmail) | { ok: false; error: IntegrationError };

export interface EmailClient {
  send(message: EmailMessage): Promise<SentEmail>;
  sendWithTemplate(message: TemplatedEmail): Promise<SentEmail>;
  /** One result per message, in order; a message Postmark refuses does not fail the others. */
  sendBatch(messages: EmailMessage[]): Promise<BatchResult[]>;
  sendBatchWithTemplates(messages: TemplatedEmail[]): Promise<BatchResult[]>;
  /** Creates the template, or updates the one with this alias, so deployments can provision templates. */
  ensureTemplate(template: TemplateDefinition): Promise<{ templateId: number }>;
  /**
   * The id of a message already sent to `recipient` carrying every `metadata` pair (Postmark's outbound
   * message search, GET /messages/outbound with metadata_<key> filters), or null.
   */
  findSent(query: { recipient: string; tag?: string; metadata: Record<string, string> }): Promise<string | null>;
}

const SYSTEM = 'email';
const TEMPLATE_NOT_FOUND = 1101;

/** Postmark's own ErrorCode carried by a rejected email error (e.g. 300 invalid request, 406 inactive recipient). */
export function postmarkErrorCode(err: unknown): number | undefined {
  const remote = err instanceof IntegrationError ? (err.remote as { ErrorCode?: unknown } | undefined) : undefined;
  return typeof remote?.ErrorCode === 'number' ? remote.ErrorCode : undefined;
}

function kindForStatus(status: number): IntegrationErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'rejected';
}

interface Receipt {
  ErrorCode: number;
  Message: string;
  MessageID?: string;
  SubmittedAt?: string;
  To?: string;
}

export function createEmailClient(options: EmailClientOptions): EmailClient {
  if (!options.serverToken?.trim()) throw new Error('email: a Postmark server token is required');
  const url = new URL(options.apiUrl);
  // The official client builds `${scheme}://${requestHost}${path}`, so a path prefix can ride on the host.
  const requestHost = url.host + url.pathname.replace(/\/+$/, '');
  const useHttps = url.protocol === 'https:';
  const timeoutMs = options.timeoutMs ?? 10_000;
  const defaultStream = options.messageStream ?? 'outbound';
  const doFetch = options.fetch ?? fetch;

  /**
   * Runs one API call on a fresh ServerClient (cheap: it only holds options) whose fetch records what the
   * transport saw, because postmark's errors keep only a message: a time-out and a refused connection would
   * otherwise be indistinguishable, and a 429's Retry-After would be lost.
   */
  async function call<T>(operation: string, run: (client: ServerClient) => Promise<T>): Promise<T> {
    let transportError: unknown;
    let response: Response | undefined;
    const client = new ServerClient(options.serverToken, {
      requestHost,
      useHttps,
      timeout: timeoutMs / 1000,
      fetch: async (input, init) => {
        try {
          response = await doFetch(input, init);
          return response;
        } catch (err) {
          transportError = err;
          throw err;
        }
      },
    });
    try {
      return await run(client);
    } catch (err) {
      const status = err instanceof Errors.PostmarkError ? err.statusCode : 0;
      if (transportError !== undefined || status === 0) {
        const name = (transportError as Error | undefined)?.name;
        if (name === 'TimeoutError' || name === 'AbortError') {
          throw new IntegrationError(SYSTEM, 'timeout', `${SYSTEM}: ${operation} did not answer within ${timeoutMs} ms`, { cause: transportError });
        }
        const reason = (transportError as Error | undefined)?.cause ?? transportError ?? err;
        throw new IntegrationError(SYSTEM, 'unavailable', `${SYSTEM}: ${operation} failed: ${(reason as Error)?.message ?? String(reason)}`, { cause: transportError ?? err });
      }
      const postmark = err as InstanceType<typeof Errors.PostmarkError>;
      const retryAfter = Number(response?.headers.get('retry-after'));
      throw new IntegrationError(SYSTEM, kindForStatus(status), `${SYSTEM}: ${operation} answered ${status}${postmark.code ? ` (ErrorCode ${postmark.code})` : ''}: ${postmark.message}`, {
        status,
        retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
        remote: { ErrorCode: postmark.code, Message: postmark.message },
        cause: err,
      });
    }
  }

  const join = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v);
  const envelope = (m: Envelope) => ({
    From: m.from,
    To: join(m.to),
    Cc: join(m.cc),
    Bcc: join(m.bcc),
    ReplyTo: m.replyTo,
    Tag: m.tag,
    Metadata: m.metadata,
    Headers: m.headers && Object.entries(m.headers).map(([Name, Value]) => ({ Name, Value })),
    MessageStream: m.messageStream ?? defaultStream,
  });
  const plain = (m: EmailMessage) => ({ ...envelope(m), Subject: m.subject, HtmlBody: m.html, TextBody: m.text });
  const templated = (m: TemplatedEmail) => ({
    ...envelope(m),
    ...(typeof m.template === 'number' ? { TemplateId: m.template } : { TemplateAlias: m.template }),
    TemplateModel: m.model,
  });

  function sent(operation: string, r: Receipt): SentEmail {
    if (!r || typeof r.MessageID !== 'string' || !r.MessageID) {
      throw new IntegrationError(SYSTEM, 'invalid_response', `${SYSTEM}: ${operation} answered without a MessageID`, { remote: r });
    }
    return { messageId: r.MessageID, submittedAt: r.SubmittedAt ?? '', to: r.To ?? '' };
  }

  function batchResults(operation: string, results: Receipt[]): BatchResult[] {
    if (!Array.isArray(results)) throw new IntegrationError(SYSTEM, 'invalid_response', `${SYSTEM}: ${operation} answered without a result list`, { remote: results });
    return results.map((r, i) =>
      r.ErrorCode === 0
        ? { ok: true, ...sent(operation, r) }
        : {
            ok: false,
            error: new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: ${operation} message ${i} rejected (ErrorCode ${r.ErrorCode}): ${r.Message}`, {
              status: 422,
              remote: { ErrorCode: r.ErrorCode, Message: r.Message },
            }),
          },
    );
  }

  return {
    send: (m) => call('POST /email', (c) => c.sendEmail(plain(m))).then((r) => sent('POST /email', r)),
    sendWithTemplate: (m) => call('POST /email/withTemplate', (c) => c.sendEmailWithTemplate(templated(m))).then((r) => sent('POST /email/withTemplate', r)),
    sendBatch: (ms) => call('POST /email/batch', (c) => c.sendEmailBatch(ms.map(plain))).then((r) => batchResults('POST /email/batch', r)),
    sendBatchWithTemplates: (ms) =>
      call('POST /email/batchWithTemplates', (c) => c.sendEmailBatchWithTemplates(ms.map(templated))).then((r) => batchResults('POST /email/batchWithTemplates', r)),
    async findSent({ recipient, tag, metadata }) {
      const filter = { count: 50, offset: 0, recipient, ...(tag ? { tag } : {}), ...Object.fromEntries(Object.entries(metadata).map(([k, v]) => [`metadata_${k}`, v])) };
      const found = await call('GET /messages/outbound', (c) => c.getOutboundMessages(filter));
      // Checked here too: the filters narrow the search, the metadata decides.
      const match = found.Messages.find((m) => Object.entries(metadata).every(([k, v]) => (m.Metadata as Record<string, string> | undefined)?.[k] === v));
      return match?.MessageID ?? null;
    },
    async ensureTemplate(t) {
      const fields = { Name: t.name, Alias: t.alias, Subject: t.subject, HtmlBody: t.html, TextBody: t.text };
      try {
        await call('GET /templates/:alias', (c) => c.getTemplate(t.alias));
      } catch (err) {
        if (postmarkErrorCode(err) !== TEMPLATE_NOT_FOUND) throw err;
        const created = await call('POST /templates', (c) => c.createTemplate(fields));
        return { templateId: created.TemplateId };
      }
      const updated = await call('PUT /templates/:alias', (c) => c.editTemplate(t.alias, fields));
      return { templateId: updated.TemplateId };
    },
  };
}
