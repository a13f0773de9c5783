// Every failure leaves the API as `{ error, code }`: validation errors, unknown routes, oversized bodies,
// rate limits, workflow failures (ApplicationFailure whose type is one of our codes) and our own
// AppErrors. 5xx answers never show internals; they carry the request id to find the log line.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, isErrorCode, statusOf, type ErrorCode } from '../../domain/errors.js';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_INPUT',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_INPUT',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_INPUT',
  FST_ERR_VALIDATION: 'INVALID_INPUT',
};

function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400: return 'INVALID_INPUT';
    case 401: return 'UNAUTHORIZED';
    case 403: return 'FORBIDDEN';
    case 404: return 'NOT_FOUND';
    case 405: return 'METHOD_NOT_ALLOWED';
    case 409: return 'CONFLICT';
    case 413: return 'PAYLOAD_TOO_LARGE';
    case 415: return 'UNSUPPORTED_MEDIA_TYPE';
    case 429: return 'RATE_LIMITED';
    default: return status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_INPUT';
  }
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
  if (hasZodFastifySchemaValidationErrors(err)) {
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
    const message = mapped === 'PAYLOAD_TOO_LARGE' ? 'Request body is larger than the 1 MB limit' : mapped === 'INVALID_INPUT' ? `Malformed request body: ${fe.message ?? 'invalid'}` : fe.message ?? mapped;
    return new AppError(mapped, message);
  }
  const status = fe.statusCode ?? fe.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = codeForStatus(status);
    return new AppError(code, fe.message || code);
  }
  return new AppError('INTERNAL_ERROR', 'Internal server error');
}

export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err);
    if (appError.status >= 500) {
      request.log.error({ err }, 'request failed');
      const body = { error: `${appError.status === 500 ? 'Internal server error' : appError.message} (request id ${request.id})`, code: appError.code };
      return reply.code(appError.status).send(body);
    }
    if (appError.code === 'RATE_LIMITED' && !reply.getHeader('retry-after')) reply.header('retry-after', '60');
    const body: Record<string, unknown> = { error: appError.message, code: appError.code };
    if (appError.details) body.details = appError.details;
    return reply.code(appError.status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(statusOf('NOT_FOUND')).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found`, code: 'NOT_FOUND' });
  });
}, { name: 'errors' });
