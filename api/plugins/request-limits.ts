// Bodies over the limit are refused before they are read, on every route (known or not), from the
// declared Content-Length; Fastify's own bodyLimit catches chunked bodies while they stream.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';

export const requestLimitsPlugin = fp(async (app: FastifyInstance, opts: { bodyLimit: number }) => {
  // Synchronous (done callback): nothing to await, so no promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > opts.bodyLimit) {
      done(new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than the ${Math.round(opts.bodyLimit / 1024 / 1024)} MB limit`));
      return;
    }
    done();
  });
}, { name: 'request-limits' });
