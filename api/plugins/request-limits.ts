// Bodies over the limit are refused before they are read, on every route (known or not), from the
// declared Content-Length; Fastify's own bodyLimit catches chunked bodies while they stream.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';

export const requestLimitsPlugin = fp(async (app: FastifyInstance, opts: { bodyLimit: number }) => {
  app.addHook('onRequest', async (request) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > opts.bodyLimit) {
      throw new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than the ${Math.round(opts.bodyLimit / 1024 / 1024)} MB limit`);
    }
  });
}, { name: 'request-limits' });
