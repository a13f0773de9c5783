// Request validation and the error answer of the processor API: { error: { type, message, param? } }.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from './state.js';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** ISO 4217, any case in, upper case out. */
export const currencySchema = z
  .string()
  .length(3)
  .transform((c) => c.toUpperCase())
  .refine((c) => CURRENCIES.has(c), { message: 'not an ISO 4217 currency code' });

/** Integer minor units, at least 1, at most 99,999,999 like the card networks' usual ceiling. */
export const amountSchema = z.number().int().min(1).max(99_999_999);

export const metadataSchema = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, { message: 'at most 50 keys' });

export const httpUrlSchema = z.url({ protocol: /^https?$/ }).max(2048);

/** A DNS name with at least two labels and an alphabetic TLD (no IPs, no localhost, no scheme). */
export const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .transform((d) => d.replace(/\.$/, ''))
  .pipe(z.string().max(253).regex(/^(?:(?!-)[a-z0-9-]{1,63}(?<!-)\.)+[a-z]{2,63}$/, 'not a valid domain name'));

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues;
  const param = issues[0]?.path.join('.') || undefined;
  throw new ApiError(400, 'invalid_request_error', issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), param);
}

export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.status).send({ error: { type: error.type, message: error.message, ...(error.param ? { param: error.param } : {}) } });
}

/** Error handler of the JSON scopes: our ApiErrors as they are, Fastify's own 4xx (bad JSON, 415, 413) as invalid requests. */
export function apiErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiError) return sendApiError(reply, error);
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status < 500) return sendApiError(reply, new ApiError(status, 'invalid_request_error', error.message));
  request.log.error({ err: error }, 'processor sandbox: unexpected error');
  return sendApiError(reply, new ApiError(500, 'api_error', 'An unexpected error occurred in the processor sandbox'));
}
