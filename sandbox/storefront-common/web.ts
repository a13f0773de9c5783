// Plumbing both store simulators share: form posts, cookies, the public base URL, errors thrown as
// ready-made platform responses, and random tokens.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export type PublicUrl = string | (() => string) | undefined;

/** The base URL links and image URLs are built on: the configured public URL, else the request's own host. */
export function baseUrlOf(publicUrl: PublicUrl, request: FastifyRequest): string {
  const configured = typeof publicUrl === 'function' ? publicUrl() : publicUrl;
  return (configured || `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}

/** HTML forms post application/x-www-form-urlencoded, which Fastify does not parse by itself. */
export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

export function setCookie(reply: FastifyReply, name: string, value: string, path: string): void {
  reply.header('set-cookie', `${name}=${encodeURIComponent(value)}; Path=${path}; SameSite=Lax; Max-Age=1209600`);
}

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * A failure answered exactly as the platform would (its JSON error body or an HTML page). Route code
 * throws it from anywhere; the error handler installed by installErrorHandler sends it.
 */
export class PlatformError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly contentType = 'application/json; charset=utf-8',
  ) {
    super(typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body));
  }
}

/** Other failures (bad JSON, unsupported media type, bugs) in the platform's own error shape. */
export function installErrorHandler(app: FastifyInstance, shape: (status: number, message: string) => unknown): void {
  app.setErrorHandler((err: Error & { statusCode?: number }, request, reply) => {
    if (err instanceof PlatformError) return reply.code(err.status).type(err.contentType).send(err.body);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500) request.log.error(err);
    return reply.code(status).send(shape(status, status >= 500 ? 'Internal Server Error' : err.message));
  });
}

/** Form and query values are strings; this reads an integer or null. */
export function intOf(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

/** Route parameters like "123.json" (the platform's URL style). */
export const stripJson = (segment: string) => segment.replace(/\.json$/, '');

/** Why an outgoing call (webhook, plugin → service) failed, in words an operator can act on. */
export function describeFetchError(err: unknown, timeoutMs: number): string {
  const e = err as Error & { cause?: { code?: string } };
  return e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.message);
}
