// Postmark-compatible email simulator: the official `postmark` client (or curl) sends through it exactly as
// through api.postmarkapp.com. Accepted messages land in a mailbox (HTML pages for humans, /_control/messages
// for tests); nothing is ever delivered anywhere.
//   POST /email, /email/withTemplate, /email/batch, /email/batchWithTemplates   (X-Postmark-Server-Token)
//   GET|POST /templates, GET|PUT|DELETE /templates/:idOrAlias
//   GET /messages/outbound (the Messages API's search: count, offset, recipient, tag, metadata_<key>)
//   GET / (mailbox), GET /messages/:id (one message)
//   GET|DELETE /_control/messages, GET /_control/messages/:id
import { randomUUID } from 'node:crypto';
import type { FastifyError } from 'fastify';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';
import { mailboxPage, messagePage, notFoundPage } from './pages.js';
import { createTemplateStore, renderWith, summary, type TemplateStore } from './templates.js';
import {
  ERROR,
  INACTIVE_DOMAINS,
  Rejection,
  emailSchema,
  parseShape,
  templatedEmailSchema,
  validateEmail,
  type AcceptedMessage,
  type OutboundMessage,
} from './validate.js';

export type { OutboundMessage } from './validate.js';

export interface EmailSimulatorOptions extends SimulatorOptions {
  /** Server API tokens accepted in X-Postmark-Server-Token (default ['sandbox-server-token']). */
  serverTokens?: string[];
  /** Recipient domains treated as inactive (hard-bounced) addresses, answered with ErrorCode 406 (default ['bounce.test']). */
  inactiveDomains?: string[];
}

export interface MessageFilter {
  to?: string;
  tag?: string;
  metadataKey?: string;
  metadataValue?: string;
  stream?: string;
}

export interface EmailSimulator extends Simulator {
  /** Accepted messages matching the filter, newest first. */
  messages(filter?: MessageFilter): OutboundMessage[];
  clearMessages(): void;
  templates: TemplateStore;
}

export const DEFAULT_SERVER_TOKEN = 'sandbox-server-token';
const MAX_BATCH = 500;

export function createEmailSimulator(opts: EmailSimulatorOptions = {}): EmailSimulator {
  const sim = createSimulator('email', { logger: opts.logger });
  const tokens = new Set(opts.serverTokens ?? [DEFAULT_SERVER_TOKEN]);
  const inactiveDomains = (opts.inactiveDomains ?? INACTIVE_DOMAINS).map((d) => d.toLowerCase());
  const templates = createTemplateStore();
  let outbox: OutboundMessage[] = []; // newest first

  sim.onReset(() => {
    outbox = [];
    templates.clear();
  });

  function accept(message: AcceptedMessage): OutboundMessage {
    const stored: OutboundMessage = { MessageID: randomUUID(), SubmittedAt: new Date().toISOString(), ...message };
    outbox.unshift(stored);
    return stored;
  }

  const sendPlain = (body: unknown) => accept(validateEmail(parseShape(emailSchema, body), inactiveDomains));

  function sendTemplated(body: unknown): OutboundMessage {
    const input = parseShape(templatedEmailSchema, body);
    const key = input.TemplateId ?? input.TemplateAlias;
    if (key === null || key === undefined || key === '') throw new Rejection(ERROR.invalidRequestFields, "Invalid request field(s): either 'TemplateId' or 'TemplateAlias' is required.");
    const template = templates.get(key);
    const accepted = validateEmail({ ...input, ...renderWith(template, input.TemplateModel) }, inactiveDomains);
    return accept({ ...accepted, TemplateId: template.TemplateId, TemplateAlias: template.Alias, TemplateModel: input.TemplateModel });
  }

  const receipt = (m: OutboundMessage) => ({
    To: m.To,
    ...(m.Cc && { Cc: m.Cc }),
    ...(m.Bcc && { Bcc: m.Bcc }),
    SubmittedAt: m.SubmittedAt,
    MessageID: m.MessageID,
    ErrorCode: 0,
    Message: 'OK',
  });

  /** Batches answer 200 with one result per message, in order: a receipt or that message's own error. */
  function batch(list: unknown, send: (body: unknown) => OutboundMessage) {
    if (!Array.isArray(list)) throw new Rejection(ERROR.invalidRequestFields, 'Invalid request field(s): a batch is a JSON array of messages.');
    if (list.length > MAX_BATCH) throw new Rejection(ERROR.tooManyBatchMessages, `Too many batch messages: a batch holds at most ${MAX_BATCH} messages.`);
    return list.map((item) => {
      try {
        return receipt(send(item));
      } catch (err) {
        if (err instanceof Rejection) return err.toJSON();
        throw err;
      }
    });
  }

  // Postmark's API: authenticated by server token, every refusal a 422 {ErrorCode, Message}.
  void sim.app.register(async (api) => {
    api.addHook('onRequest', async (request, reply) => {
      const token = request.headers['x-postmark-server-token'];
      if (typeof token !== 'string' || !token) {
        return reply.code(401).send({
          ErrorCode: ERROR.badToken,
          Message: 'No Account or Server API tokens were supplied in the HTTP headers. Please add a header for either X-Postmark-Server-Token or X-Postmark-Account-Token.',
        });
      }
      if (!tokens.has(token)) return reply.code(401).send({ ErrorCode: ERROR.badToken, Message: 'Request does not contain a valid Server token.' });
    });

    // The official client sends Content-Type: application/json on every call, bodiless DELETEs included.
    api.removeContentTypeParser('application/json');
    api.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      if (body === '') return done(null, null);
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(new Rejection(ERROR.invalidJson, 'Received invalid JSON input.'), undefined);
      }
    });

    api.setErrorHandler((err: FastifyError, request, reply) => {
      if (err instanceof Rejection) return reply.code(422).send(err.toJSON());
      if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return reply.code(422).send({ ErrorCode: ERROR.jsonRequired, Message: "Your HTTP request doesn't have the Accept and Content-Type headers set to application/json." });
      }
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(422).send({ ErrorCode: ERROR.invalidEmailRequest, Message: 'The request exceeds the maximum message size.' });
      if (err.statusCode && err.statusCode < 500) return reply.code(err.statusCode).send({ ErrorCode: 0, Message: err.message });
      request.log.error(err);
      return reply.code(500).send({ ErrorCode: 0, Message: 'Internal server error.' });
    });

    api.post('/email', async (request) => receipt(sendPlain(request.body)));
    api.post('/email/withTemplate', async (request) => receipt(sendTemplated(request.body)));
    api.post('/email/batch', async (request) => batch(request.body, sendPlain));
    api.post('/email/batchWithTemplates', async (request) => batch((request.body as { Messages?: unknown } | null)?.Messages, sendTemplated));

    api.get('/templates', async (request) => {
      const query = Object.fromEntries(Object.entries(request.query as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
      const count = Number(query.count ?? 100);
      const offset = Number(query.offset ?? 0);
      if (!Number.isInteger(count) || count < 1 || count > 500 || !Number.isInteger(offset) || offset < 0) {
        throw new Rejection(ERROR.templateQuery, "Template query exception: 'Count' must be 1-500 and 'Offset' at least 0.");
      }
      const all = templates.list().filter((t) => !query.templatetype || query.templatetype === 'All' || t.TemplateType === query.templatetype);
      return { TotalCount: all.length, Templates: all.slice(offset, offset + count).map(summary) };
    });
    // Outbound message search (Postmark's Messages API): newest first, summaries only.
    api.get('/messages/outbound', async (request) => {
      const query = request.query as Record<string, string>;
      const lower = Object.fromEntries(Object.entries(query).map(([k, v]) => [k.toLowerCase(), v]));
      const count = Number(lower.count);
      const offset = Number(lower.offset);
      if (!Number.isInteger(count) || count < 1 || count > 500 || !Number.isInteger(offset) || offset < 0 || count + offset > 10_000) {
        throw new Rejection(ERROR.invalidRequestFields, "Invalid request field(s): 'count' (1-500) and 'offset' are required, count + offset at most 10,000.");
      }
      const recipient = lower.recipient?.trim().toLowerCase();
      const metadata = Object.entries(query).filter(([k]) => k.startsWith('metadata_')).map(([k, v]) => [k.slice('metadata_'.length), v] as const);
      const found = outbox.filter(
        (m) =>
          (!recipient || m.Recipients.includes(recipient)) &&
          (!lower.tag || m.Tag === lower.tag) &&
          (!lower.messagestream || m.MessageStream === lower.messagestream) &&
          metadata.every(([k, v]) => m.Metadata[k] === v),
      );
      return {
        TotalCount: found.length,
        Messages: found.slice(offset, offset + count).map((m) => ({
          MessageID: m.MessageID,
          MessageStream: m.MessageStream,
          To: m.Recipients.map((Email) => ({ Email, Name: null })),
          Recipients: m.Recipients,
          From: m.From,
          Subject: m.Subject,
          Tag: m.Tag,
          Metadata: m.Metadata,
          Status: 'Sent',
          ReceivedAt: m.SubmittedAt,
        })),
      };
    });
    api.get<{ Params: { idOrAlias: string } }>('/templates/:idOrAlias', async (request) => templates.get(request.params.idOrAlias));
    for (const path of ['/templates', '/templates/']) api.post(path, async (request) => summary(templates.create(request.body)));
    api.put<{ Params: { idOrAlias: string } }>('/templates/:idOrAlias', async (request) => summary(templates.update(request.params.idOrAlias, request.body)));
    api.delete<{ Params: { idOrAlias: string } }>('/templates/:idOrAlias', async (request) => {
      const removed = templates.remove(request.params.idOrAlias);
      return { ErrorCode: 0, Message: `Template ${removed.TemplateId} removed.` };
    });
  });

  function messages(filter: MessageFilter = {}): OutboundMessage[] {
    const to = filter.to?.trim().toLowerCase();
    return outbox.filter(
      (m) =>
        (!to || m.Recipients.includes(to)) &&
        (!filter.tag || m.Tag === filter.tag) &&
        (!filter.stream || m.MessageStream === filter.stream) &&
        (!filter.metadataKey || filter.metadataKey in m.Metadata) &&
        (filter.metadataValue === undefined || (filter.metadataKey ? m.Metadata[filter.metadataKey] === filter.metadataValue : Object.values(m.Metadata).includes(filter.metadataValue))),
    );
  }

  // The mailbox for humans.
  sim.app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(mailboxPage(outbox)));
  sim.app.get<{ Params: { id: string } }>('/messages/:id', async (request, reply) => {
    const message = outbox.find((m) => m.MessageID === request.params.id);
    return message ? reply.type('text/html; charset=utf-8').send(messagePage(message)) : reply.code(404).type('text/html; charset=utf-8').send(notFoundPage(request.params.id));
  });

  // Control API for tests.
  sim.app.get<{ Querystring: MessageFilter }>('/_control/messages', async (request) => ({ messages: messages(request.query) }));
  sim.app.get<{ Params: { id: string } }>('/_control/messages/:id', async (request, reply) => {
    const message = outbox.find((m) => m.MessageID === request.params.id);
    return message ?? reply.code(404).send({ error: `no message ${request.params.id}`, code: 'NOT_FOUND' });
  });
  sim.app.delete('/_control/messages', async () => {
    const deleted = outbox.length;
    outbox = [];
    return { ok: true, deleted };
  });

  return Object.assign(sim, {
    messages,
    clearMessages: () => void (outbox = []),
    templates,
  });
}
