// Signed webhooks are verified over the exact bytes the sender signed: re-serialised JSON would not
// match. Called inside an encapsulated route plugin (registered without fastify-plugin), it makes that
// plugin's routes receive every body as a Buffer, while the rest of the API keeps the JSON parser.
import { z } from 'zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The body schema of such a route: validates nothing (the route reads the bytes and answers a body that is not
 * JSON itself, after storing the delivery), and makes the document state that a JSON body is required.
 */
export const rawJsonBody = z.unknown();

type ParserHost = Pick<FastifyInstance, 'addContentTypeParser'>;

const keepBytes = (_request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: Buffer) => void) => done(null, body);

/** Bodies of this plugin's routes arrive as Buffers, whatever their content type (JSON included). */
export function acceptRawBodies(app: ParserHost): void {
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, keepBytes);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, keepBytes);
}

/** The raw body of a request on such a route (empty when there was none). */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}
