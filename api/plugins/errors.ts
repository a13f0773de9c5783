// Every failure leaves the API as `{ error, code }`: validation errors, unknown routes, oversized bodies,
// rate limits, workflow failures (ApplicationFailure whose type is one of our codes) and our own
// AppErrors. 5xx answers never show internals; they carry the request id to find the log line.
// Fastify answers a few failures itself, outside the error handler (a URL it cannot decode, a path
// parameter over maxParamLength, a request Node's HTTP parser refuses): `frameworkErrors` and
// `clientErrorHandler` below give those the same shape; buildApp passes them to Fastify.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { AppError, isErrorCode, statusOf, type ErrorCode } from '../../domain/errors.js';
import { checkoutLanguageOf, type CheckoutLanguage } from '../../domain/checkout/checkout-messages/index.js';
import { translateShopperMessage } from '../../domain/checkout/shopper-errors/index.js';
import { acceptedLanguages } from '../schemas/shopper-language.js';
import { addVary } from '../vary.js';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_INPUT',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_INPUT',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_INPUT',
  FST_ERR_VALIDATION: 'INVALID_INPUT',
  FST_ERR_BAD_URL: 'INVALID_INPUT',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
};

function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400: return 'INVALID_INPUT';
    case 401: return 'UNAUTHORIZED';
    case 403: return 'FORBIDDEN';
    case 404: return 'NOT_FOUND';
    case 405: return 'METHOD_NOT_ALLOWED';
    case 408: return 'REQUEST_TIMEOUT';
    case 409: return 'CONFLICT';
    case 413: return 'PAYLOAD_TOO_LARGE';
    case 414: return 'URI_TOO_LONG';
    case 415: return 'UNSUPPORTED_MEDIA_TYPE';
    case 429: return 'RATE_LIMITED';
    case 431: return 'HEADERS_TOO_LARGE';
    default: return status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_INPUT';
  }
}

/** Ours where Fastify's would say something internal or misleading. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is larger than the 1 MB limit',
  FST_ERR_BAD_URL: 'The URL is not valid: a percent-encoded part does not decode to UTF-8 text',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is longer than any this API accepts',
};

/** A failed schema validation (zod's issues, and the unstorable-text rule of api/validation.ts). */
function isValidationError(err: unknown): err is { validation: FastifySchemaValidationError[]; validationContext?: string } {
  const e = err as { code?: unknown; validation?: unknown };
  return e?.code === 'FST_ERR_VALIDATION' && Array.isArray(e.validation) && e.validation.length > 0;
}

/** Finds an ApplicationFailure (thrown by a workflow or activity) whose type is one of our codes. */
function workflowFailure(err: unknown): AppError | undefined {
  for (let e = err as { name?: string; type?: unknown; message?: string; cause?: unknown; details?: unknown[] } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) {
    if (e.name === 'ApplicationFailure' && isErrorCode(e.type)) {
      const details = Array.isArray(e.details) && e.details[0] && typeof e.details[0] === 'object' ? (e.details[0] as Record<string, unknown>) : undefined;
      return new AppError(e.type, e.message ?? e.type, details);
    }
  }
  return undefined;
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const fromWorkflow = workflowFailure(err);
  if (fromWorkflow) return fromWorkflow;
  if (isValidationError(err)) {
    const fields: Record<string, string> = {};
    for (const v of err.validation) {
      const where = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const key = [err.validationContext, where].filter(Boolean).join('.') || 'body';
      fields[key] ??= v.message ?? 'invalid';
    }
    const message = Object.entries(fields).map(([k, m]) => `${k}: ${m}`).join('; ');
    return new AppError('INVALID_INPUT', message || 'Invalid input', { fields });
  }
  const fe = err as Partial<FastifyError> & { status?: number };
  const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (mapped) {
    return new AppError(mapped, FASTIFY_MESSAGES[fe.code!] ?? (mapped === 'INVALID_INPUT' ? `Malformed request body: ${fe.message ?? 'invalid'}` : fe.message ?? mapped));
  }
  const status = fe.statusCode ?? fe.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = codeForStatus(status);
    return new AppError(code, fe.message || code);
  }
  return new AppError('INTERNAL_ERROR', 'Internal server error');
}

/** The answer to any failure: `{ error, code }` (+ details), internals hidden on 5xx. */
function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(err);
  if (appError.status >= 500) {
    request.log.error({ err }, 'request failed');
    const body = { error: `${appError.status === 500 ? 'Internal server error' : appError.message} (request id ${request.id})`, code: appError.code };
    return reply.code(appError.status).send(body);
  }
  if (appError.code === 'RATE_LIMITED' && !reply.getHeader('retry-after')) reply.header('retry-after', '60');
  const language = shopperLanguage(request);
  const say = (text: string) => (language ? translateShopperMessage(text, language) : text);
  const body: Record<string, unknown> = { error: say(appError.message), code: appError.code };
  if (appError.details) body.details = language ? withTranslatedFields(appError.details, say) : appError.details;
  if (language) reply.header('content-language', language);
  if (isShopperRoute(request)) addVary(reply, 'Accept-Language');
  return reply.code(appError.status).send(body);
}

/** The checkout page's own routes (a shopper reads their refusals), not the merchant's under /api/checkout/merchant. */
const isShopperRoute = (request: FastifyRequest) => request.url.startsWith('/api/checkout/') && !request.url.startsWith('/api/checkout/merchant/');

/**
 * The language a shopper route answers its refusals in: the request's Accept-Language (the checkout page sends the
 * language it shows), when the page speaks it and it is not English; else none (English, as written).
 */
function shopperLanguage(request: FastifyRequest): Exclude<CheckoutLanguage, 'en'> | null {
  if (!isShopperRoute(request)) return null;
  const language = checkoutLanguageOf(acceptedLanguages(request.headers['accept-language']));
  return language === 'en' ? null : language;
}

/** `details` with each `fields` message said in the shopper's language (everything else as it was). */
function withTranslatedFields(details: Record<string, unknown>, say: (text: string) => string): Record<string, unknown> {
  const fields = details.fields;
  if (!fields || typeof fields !== 'object') return details;
  return { ...details, fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? say(v) : v])) };
}

/** Fastify's `frameworkErrors` option: router failures (bad URL encoding, over-long path parameter) as our errors. */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No route ran, so no onRequest hook set the id header.
  reply.header('x-request-id', request.id);
  reply.header('request-id', request.id);
  void sendError(err, request, reply);
}

const CLIENT_ERRORS: Record<string, ErrorCode> = { ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT', HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE' };

/** Fastify's `clientErrorHandler` option: a request Node's HTTP parser refused, answered on the raw socket. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code = CLIENT_ERRORS[err.code ?? ''] ?? 'INVALID_INPUT';
  const message = code === 'REQUEST_TIMEOUT' ? 'The request took too long to arrive' : code === 'HEADERS_TOO_LARGE' ? 'The request headers are too large' : 'The request is not valid HTTP';
  const body = JSON.stringify({ error: message, code });
  const status = statusOf(code);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));

  app.setNotFoundHandler((request, reply) => {
    reply.code(statusOf('NOT_FOUND')).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found`, code: 'NOT_FOUND' });
  });
}, { name: 'errors' });
